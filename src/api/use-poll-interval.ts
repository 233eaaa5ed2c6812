import { DEFAULT_POLL_INTERVAL_MS } from '../model/operation-status';
import { useStoredNumber } from '../lib/use-stored-state';

const STORAGE_KEY = 'ops-console.poll-interval-ms';

/** The person's chosen refresh interval, shared by every live screen and kept across visits. */
export function usePollInterval(): [number, (ms: number) => void] {
  return useStoredNumber(STORAGE_KEY, DEFAULT_POLL_INTERVAL_MS);
}
