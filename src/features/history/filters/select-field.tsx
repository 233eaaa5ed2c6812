import { useId } from 'react';

interface SelectFieldProps {
  label: string;
  /** The address parameter the filter form sends without script. */
  name?: string;
  /** What the empty choice says ("Any branch"). */
  anyLabel: string;
  value: string | undefined;
  options: readonly { id: string; name: string }[];
  onChange: (value: string | undefined) => void;
}

/** A labelled single choice with an "any" entry; a chosen value missing from `options` (a deleted branch) is kept, by its id. */
export function SelectField({ label, name, anyLabel, value, options, onChange }: SelectFieldProps) {
  const id = useId();
  const all = value !== undefined && !options.some((o) => o.id === value) ? [...options, { id: value, name: value }] : options;
  return (
    <div className="filter-field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} value={value ?? ''} onChange={(event) => onChange(event.target.value || undefined)}>
        <option value="">{anyLabel}</option>
        {all.map((option) => (
          <option key={option.id} value={option.id}>
            {option.name}
          </option>
        ))}
      </select>
    </div>
  );
}
