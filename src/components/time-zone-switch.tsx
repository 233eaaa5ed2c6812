import { useId, useSyncExternalStore } from 'react';
import { localOffset, TIME_ZONE_CHOICES, useTimeZone, type TimeZoneChoice } from '../lib/time-zone';

const noChanges = () => () => undefined;
const browserOffset = () => localOffset(new Date());
// The server knows its own offset, not the browser's: it (and hydration) name no offset, the browser adds it after.
const noOffset = () => null;

/** The one place times switch between UTC and local time; the choice is remembered. */
export function TimeZoneSwitch() {
  const id = useId();
  const [zone, setZone] = useTimeZone();
  const offset = useSyncExternalStore(noChanges, browserOffset, noOffset);
  const names: Record<TimeZoneChoice, string> = { utc: 'UTC', local: offset === null ? 'Local time' : `Local time (${offset})` };
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
