import { summaryOf, type Choice } from './choice-list';

interface MultiSelectFallbackProps {
  label: string;
  labelId: string;
  /** The address parameter the form sends ("status"). */
  name: string;
  choices: readonly Choice[];
}

/**
 * The control as the server renders it, for a page read before its script runs or without one: the
 * same closed look as the popup's button, opening a list of checkboxes the filter form sends
 * (`?status=finished&status=failed,error`, which src/model/filter-fields.ts reads as `?status=finished,failed,error`).
 */
export function MultiSelectFallback({ label, labelId, name, choices }: MultiSelectFallbackProps) {
  const summaryId = `${labelId}-summary`;
  return (
    <details className="multi-select__anchor">
      {/* Named like the popup's button ("Status: Any"), its shown text inside its name. */}
      <summary className="multi-select__button" aria-labelledby={`${labelId} ${summaryId}`}>
        <span id={summaryId} className="multi-select__summary">
          {summaryOf(choices)}
        </span>
        <span className="multi-select__caret" aria-hidden="true" />
      </summary>
      <fieldset className="multi-select__popup multi-select__checks">
        <legend className="visually-hidden">{label}</legend>
        {choices.map((choice) => (
          <label key={choice.value} className="multi-select__check-option">
            <input type="checkbox" name={name} value={choice.formValue ?? choice.value} defaultChecked={choice.selected} /> {choice.label}
          </label>
        ))}
      </fieldset>
    </details>
  );
}
