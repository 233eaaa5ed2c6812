import { useId, type MouseEvent } from 'react';

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
  hint?: string;
}

const selectedValues = (select: HTMLSelectElement) => Array.from(select.selectedOptions, (option) => option.value);

/**
 * A labelled list box of choices, several at a time: a native `<select multiple>` (keyboard and screen
 * readers know it), where a click toggles one choice instead of replacing the others.
 */
export function MultiSelectField({ label, choices, onChange, size = 4, hint }: MultiSelectFieldProps) {
  const id = useId();
  const toggle = (event: MouseEvent<HTMLSelectElement>) => {
    const option = event.target;
    if (!(option instanceof HTMLOptionElement) || event.shiftKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    option.selected = !option.selected;
    event.currentTarget.focus();
    onChange(selectedValues(event.currentTarget));
  };
  return (
    <div className="filter-field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        multiple
        size={Math.min(size, Math.max(2, choices.length))}
        value={choices.filter((c) => c.selected).map((c) => c.value)}
        onMouseDown={toggle}
        onChange={(event) => onChange(selectedValues(event.currentTarget))}
        aria-describedby={hint ? `${id}-hint` : undefined}
      >
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
      {hint && (
        <span id={`${id}-hint`} className="visually-hidden">
          {hint}
        </span>
      )}
    </div>
  );
}
