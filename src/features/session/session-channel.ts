import * as z from 'zod/mini';
import { PageSessionSchema, type PageSession } from '../../api/page-data';
import { SignOutReasonSchema } from '../../config/session';

// The session is the browser's (one cookie for every tab), so a tab that signs in or out tells the
// others at once. Messages carry what the page may know (never a key) and are checked like wire data.

export const SESSION_CHANNEL = 'ops-console.session';

const MessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('signed-in'), session: PageSessionSchema }),
  z.object({ type: z.literal('signed-out'), reason: SignOutReasonSchema }),
]);
export type SessionMessage = z.infer<typeof MessageSchema>;

export interface SessionChannel {
  post: (message: SessionMessage) => void;
  onMessage: (listener: (message: SessionMessage) => void) => void;
}

/** The channel between this browser's tabs; null where BroadcastChannel is missing (each tab then learns at its next request). */
export function openSessionChannel(): SessionChannel | null {
  if (typeof BroadcastChannel === 'undefined') return null;
  const channel = new BroadcastChannel(SESSION_CHANNEL);
  return {
    post: (message) => channel.postMessage(message),
    onMessage(listener) {
      channel.addEventListener('message', (event: MessageEvent) => {
        const parsed = MessageSchema.safeParse(event.data);
        if (parsed.success) listener(parsed.data);
      });
    },
  };
}

export type { PageSession };
