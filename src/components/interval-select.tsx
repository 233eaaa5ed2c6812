import { useId } from 'react';

const CHOICES_MS = [2_000, 5_000, 10_000, 30_000, 60_000];

/** Lets a person choose how often live data is refreshed. */
export function IntervalSelect({ value, onChange, label = 'Refresh every' }: { value: number; onChange: (ms: number) => void; label?: string }) {
  const id = useId();
  const choices = CHOICES_MS.includes(value) ? CHOICES_MS : [...CHOICES_MS, value].sort((a, b) => a - b);
  return (
    <span className="interval-select">
      <label htmlFor={id}>{label}</label>{' '}
      <select id={id} value={value} onChange={(e) => onChange(Number(e.target.value))}>
        {choices.map((ms) => (
          <option key={ms} value={ms}>
            {ms < 60_000 ? `${ms / 1_000} s` : `${ms / 60_000} min`}
          </option>
        ))}
      </select>
    </span>
  );
}
