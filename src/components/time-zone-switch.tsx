import { useId } from 'react';
import { localOffset, TIME_ZONE_CHOICES, useTimeZone, type TimeZoneChoice } from '../lib/time-zone';

/** The one place times switch between UTC and local time; the choice is remembered. */
export function TimeZoneSwitch() {
  const id = useId();
  const [zone, setZone] = useTimeZone();
  const names: Record<TimeZoneChoice, string> = { utc: 'UTC', local: `Local time (${localOffset(new Date())})` };
  return (
    <span className="time-zone-switch">
      <label htmlFor={id}>Times in</label>{' '}
      <select id={id} value={zone} onChange={(event) => setZone(event.target.value === 'local' ? 'local' : 'utc')}>
        {TIME_ZONE_CHOICES.map((choice) => (
          <option key={choice} value={choice}>
            {names[choice]}
          </option>
        ))}
      </select>
    </span>
  );
}
