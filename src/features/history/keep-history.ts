import { useKeepHistory } from '../../api/archive';

/**
 * "Keep history" as the archive screen and the insights' offer run it: the session's key kept by the console's
 * server, and what came of it said through `announce` (a status line); a failure is the mutation's error, which
 * the screen shows with a Retry.
 */
export function useKeepHistoryAction(announce: (text: string) => void) {
  const keep = useKeepHistory();
  async function keepHistory() {
    announce('');
    try {
      const source = await keep.mutateAsync();
      announce(`History is being kept with “${source.label}”: the archive is reading its projects’ whole history.`);
    } catch {
      // The screen's callout says why (keep.error).
    }
  }
  return { keep, keepHistory };
}
