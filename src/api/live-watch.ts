import * as z from 'zod/mini';
import type { WatchTarget } from './live-events';
import { CONSOLE_BASE, request } from './request';
import { OperationSchema, type Operation } from './schemas';

// What a page has open, told to the server (POST /events/watch, docs/live.md): it follows it while someone watches.
// Apart from live-events.ts, which loads after the first screen: this is the part that needs zod (the watch post, and
// the operation an event carries, parsed with the same schema as a response).

export const WATCH_PATH = '/events/watch';

const WatchAnswerSchema = z.object({ watching: z.number() });

export async function postWatches(watches: readonly WatchTarget[]): Promise<void> {
  await request(WATCH_PATH, WatchAnswerSchema, { method: 'POST', base: CONSOLE_BASE, body: { watches } });
}

/** The operation an `event: operation` carries, or null when it is not one. */
export function operationOfEvent(data: string): Operation | null {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  const parsed = OperationSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}
