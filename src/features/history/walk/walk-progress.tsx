import { describeError } from '../../../api/api-error';
import { formatDay } from '../../../lib/date-time-format';
import { formatCount, secondsLeft } from '../../../lib/format';
import { useTimeZone } from '../../../lib/time-zone';
import { useNow } from '../../../lib/use-now';
import type { HistoryWalk } from './use-history-walk';

interface WalkProgressProps {
  walk: HistoryWalk;
  /** Operations loaded (searched) so far. */
  searched: number;
  matches: number;
  /** Creation times of the newest and oldest loaded operations (epoch ms). */
  newest: number | undefined;
  oldest: number | undefined;
  /** Where the search ends by itself: the time range's start, or the project's creation (epoch ms). */
  start: number | undefined;
}

const plural = (count: number, word: string) => `${formatCount(count)} ${word}${count === 1 ? '' : 'es'}`;

/**
 * How far a search through the history has come ("searched 4,200 of the history back to 12 Mar · 37
 * matches"), with Stop while it runs and Go on once stopped, and a bar of the time it has covered.
 */
export function WalkProgress({ walk, searched, matches, newest, oldest, start }: WalkProgressProps) {
  const { status, stop, goOn } = walk;
  const [zone] = useTimeZone();
  const waiting = status.phase === 'walking' && status.activity.kind === 'waiting' ? status.activity : null;
  const now = useNow(1_000, waiting !== null);
  if (status.phase === 'idle') return null;
  const back = oldest === undefined ? '' : ` back to ${formatDay(oldest, zone, now)}`;
  const found = plural(matches, 'match');
  const line =
    status.phase === 'done'
      ? status.ended === 'end'
        ? `Searched the whole history: ${formatCount(searched)} operations${back} · ${found}`
        : `Searched back to the start of the time range: ${formatCount(searched)} operations${back} · ${found}`
      : `${status.phase === 'walking' ? 'Searching… searched' : 'Searched'} ${formatCount(searched)} of the history${back} · ${found}${
          status.phase === 'walking' ? '' : ' so far'
        }`;
  const covered = newest !== undefined && oldest !== undefined && start !== undefined && newest > start ? (newest - oldest) / (newest - start) : undefined;

  return (
    <div className="walk-progress">
      <progress
        aria-label="History searched"
        max={1}
        value={status.phase === 'done' ? 1 : covered === undefined ? undefined : Math.min(1, Math.max(0, covered))}
      />
      <p role="status" className="walk-progress__line">
        {line}
        {status.phase === 'stopped' && '. Stopped.'}
        {status.phase === 'paused' && `. Paused after ${formatCount(searched)} operations.`}
        {waiting && ` · ${waiting.problem} ${waiting.rateLimited ? 'Slowing down: g' : 'G'}oing on in ${secondsLeft(waiting, now)} s.`}
      </p>
      {status.phase === 'failed' && (
        <p role="alert" className="walk-progress__error">
          <span aria-hidden="true">✕ </span>The search stopped: {describeError(status.error).message}
        </p>
      )}
      {status.phase === 'walking' && (
        <button type="button" onClick={stop}>
          Stop
        </button>
      )}
      {(status.phase === 'stopped' || status.phase === 'paused' || status.phase === 'failed') && (
        <button type="button" onClick={goOn}>
          Go on
        </button>
      )}
    </div>
  );
}
