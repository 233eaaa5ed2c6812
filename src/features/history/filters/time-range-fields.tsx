import { useId } from 'react';
import { useTimeZone } from '../../../lib/time-zone';
import { useTakenOver } from '../../../lib/use-taken-over';
import { DateTimeField } from './date-time-field';
import { useEditSession } from './use-edit-session';

const PRESETS = [
  { label: 'Last hour', ms: 3_600_000 },
  { label: 'Last day', ms: 86_400_000 },
  { label: 'Last week', ms: 7 * 86_400_000 },
] as const;

interface TimeRangeFieldsProps {
  from: string | undefined;
  to: string | undefined;
  onChange: (range: { from: string | undefined; to: string | undefined }, options: { replace: boolean }) => void;
}

/**
 * The time range: the last hour, day or week from now (one click), or any from–to, read in the chosen time zone.
 * Its fields are read in the browser's time zone, which the server does not know, so the filter form does not
 * send them: until the script has taken the page over they are disabled (and look it), not typed in and lost.
 */
export function TimeRangeFields({ from, to, onChange }: TimeRangeFieldsProps) {
  const id = useId();
  const inert = !useTakenOver();
  const [zone] = useTimeZone();
  const zoneName = zone === 'utc' ? 'UTC' : 'local time';
  // A date is typed in parts: one history entry per field edit.
  const session = useEditSession();
  return (
    <fieldset className="filter-field time-range" aria-labelledby={`${id}-legend`}>
      <legend id={`${id}-legend`}>Time range</legend>
      <span className="time-range__presets">
        {PRESETS.map((preset) => (
          <button
            key={preset.label}
            type="button"
            onClick={() => onChange({ from: new Date(Date.now() - preset.ms).toISOString(), to: undefined }, { replace: false })}
          >
            {preset.label}
          </button>
        ))}
        <button
          type="button"
          disabled={from === undefined && to === undefined}
          onClick={() => onChange({ from: undefined, to: undefined }, { replace: false })}
        >
          Any time
        </button>
      </span>
      <span className="time-range__fields">
        <label htmlFor={`${id}-from`}>From</label>
        <DateTimeField
          id={`${id}-from`}
          value={from}
          zone={zone}
          disabled={inert}
          describedBy={`${id}-zone`}
          session={session}
          onChange={(next, options) => onChange({ from: next, to }, options)}
        />
        <label htmlFor={`${id}-to`}>To</label>
        <DateTimeField
          id={`${id}-to`}
          value={to}
          zone={zone}
          disabled={inert}
          describedBy={`${id}-zone`}
          session={session}
          onChange={(next, options) => onChange({ from, to: next }, options)}
        />
        <span id={`${id}-zone`} className="muted small">
          ({zoneName})
        </span>
      </span>
    </fieldset>
  );
}
