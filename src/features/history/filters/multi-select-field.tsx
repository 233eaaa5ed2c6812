import { useId } from 'react';

export interface Choice {
  value: string;
  label: string;
  selected: boolean;
}

interface MultiSelectFieldProps {
  label: string;
  choices: readonly Choice[];
  /** The values chosen now, in the order of `choices`. */
  onChange: (values: string[]) => void;
  size?: number;
}

/**
 * A labelled list box of choices, several at a time: a native `<select multiple>`, which keyboards,
 * screen readers and test tools all know (a click picks one, Ctrl- or ⌘-click adds one more).
 */
export function MultiSelectField({ label, choices, onChange, size = 4 }: MultiSelectFieldProps) {
  const id = useId();
  return (
    <div className="filter-field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        multiple
        size={Math.min(size, Math.max(2, choices.length))}
        value={choices.filter((c) => c.selected).map((c) => c.value)}
        onChange={(event) => onChange(Array.from(event.currentTarget.selectedOptions, (option) => option.value))}
        aria-describedby={`${id}-hint`}
      >
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
      <span id={`${id}-hint`} className="filter-field__hint">
        Ctrl- or ⌘-click for several
      </span>
    </div>
  );
}
