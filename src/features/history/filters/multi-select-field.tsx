import { useId } from 'react';
import { useTakenOver } from '../../../lib/use-taken-over';
import { ChoiceChips } from './choice-chips';
import { without, type Choice } from './choice-list';
import { MultiSelectFallback } from './multi-select-fallback';
import { MultiSelectPopup } from './multi-select-popup';

interface MultiSelectFieldProps {
  label: string;
  /** The address parameter ("status"), which the no-script form sends. */
  name: string;
  choices: readonly Choice[];
  /** The values chosen now, in the order of `choices`. */
  onChange: (values: string[]) => void;
  /** A text box in the popup narrows the list (Action). */
  findable?: boolean;
  /** The address with these values chosen: the chips' links before the script runs. */
  hrefFor?: (values: string[]) => string;
}

/**
 * A labelled choice of several values: a button opening a list (multi-select-popup.tsx), and the values
 * chosen as chips below it. Until the browser has taken the server's HTML over, the same box is a
 * `<details>` of checkboxes the filter form sends (multi-select-fallback.tsx), so a page read without
 * script filters too; both look the same closed, so nothing moves when one becomes the other.
 */
export function MultiSelectField({ label, name, choices, onChange, findable = false, hrefFor }: MultiSelectFieldProps) {
  const id = useId();
  const takenOver = useTakenOver();
  const labelId = `${id}-label`;
  const buttonId = `${id}-button`;
  return (
    <div className="filter-field multi-select">
      <span id={labelId} className="filter-field__label">
        {label}
      </span>
      {takenOver ? (
        <MultiSelectPopup labelId={labelId} buttonId={buttonId} choices={choices} onChange={onChange} findable={findable} />
      ) : (
        <MultiSelectFallback label={label} labelId={labelId} name={name} choices={choices} />
      )}
      <ChoiceChips
        choices={choices}
        buttonId={buttonId}
        onRemove={takenOver ? (value) => onChange(without(choices, value)) : undefined}
        hrefWithout={hrefFor && ((value) => hrefFor(without(choices, value)))}
      />
    </div>
  );
}
