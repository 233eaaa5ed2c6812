import { isTerminal, statusTone } from '../../model/operation-status';
import type { WatchState } from './watch-store';

export interface WatchSummary {
  running: number;
  /** Error label: failed for good, or failed and awaiting the platform's retry. */
  failed: number;
  /** Ended without error (OK, Cancelled, Skipped). */
  finished: number;
}

export function summarizeWatch(state: WatchState): WatchSummary {
  const summary: WatchSummary = { running: 0, failed: 0, finished: 0 };
  for (const group of state.groups) {
    for (const { operation } of group.entries) {
      if (statusTone(operation.status) === 'danger') summary.failed++;
      else if (isTerminal(operation.status)) summary.finished++;
      else summary.running++;
    }
  }
  return summary;
}

/** "2 running, 1 failed, 3 finished": only the counts that are not zero. */
export function describeSummary({ running, failed, finished }: WatchSummary): string {
  return [running && `${running} running`, failed && `${failed} failed`, finished && `${finished} finished`].filter(Boolean).join(', ');
}
