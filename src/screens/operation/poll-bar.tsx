import type { Operation } from '../../api/schemas';
import { IntervalSelect } from '../../components/interval-select';
import { WatchButton } from '../../features/watch/watch-button';
import { everyInterval, secondsSince } from '../../lib/format';
import { useLive } from '../../lib/poll-sharing/use-shared-polls';

interface PollBarProps {
  operation: Operation;
  /** Delay of the next check, or false once the operation has ended. */
  pollDelay: number | false;
  visible: boolean;
  lastChecked: number;
  nextCheckIn: number | null;
  now: number;
  checking: boolean;
  onCheckNow: () => void;
  intervalMs: number;
  onIntervalChange: (ms: number) => void;
  projectName: string | undefined;
  branchName: string | undefined;
  computeName: string | undefined;
}

/** When the operation was last checked and is checked next, with Check now, Watch and the interval. */
export function PollBar({
  operation,
  pollDelay,
  visible,
  lastChecked,
  nextCheckIn,
  now,
  checking,
  onCheckNow,
  intervalMs,
  onIntervalChange,
  projectName,
  branchName,
  computeName,
}: PollBarProps) {
  // The live stream in use (docs/live.md): the server brings each change, and nothing is polled.
  const live = useLive();
  // Ended: nothing will change, so there is nothing to check, watch or pace.
  if (pollDelay === false) {
    return (
      <div className="poll-bar" role="group" aria-label="Live updates">
        <span>This operation has ended; no more checks.</span>
      </div>
    );
  }
  return (
    <div className="poll-bar" role="group" aria-label="Live updates">
      {/* Which source is in use (docs/live.md): the stream ("Live"), or the checks and their pace. */}
      {live ? (
        <strong>Live</strong>
      ) : !visible ? (
        <span>Checks paused while this tab is hidden.</span>
      ) : (
        <span>
          Checking every {everyInterval(intervalMs)} · Last checked {secondsSince(lastChecked, now)} s ago · next check in {nextCheckIn ?? 0} s
        </span>
      )}{' '}
      <button type="button" onClick={onCheckNow} disabled={checking}>
        Check now
      </button>{' '}
      <WatchButton operation={operation} projectName={projectName} branchName={branchName} computeName={computeName} />{' '}
      <IntervalSelect value={intervalMs} onChange={onIntervalChange} />
    </div>
  );
}
