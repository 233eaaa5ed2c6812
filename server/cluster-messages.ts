// What the primary and its workers tell each other over cluster IPC, checked on arrival like any wire.
import * as z from 'zod/mini';
import type { RevokedSessions } from './session/revoked-sessions';

const RevokeMessage = z.object({ type: z.literal('ops-console:revoke'), sid: z.string(), exp: z.number(), reason: z.enum(['signed-out', 'rejected']) });
const ListeningMessage = z.object({ type: z.literal('ops-console:listening'), url: z.string() });
const ShutdownMessage = z.object({ type: z.literal('ops-console:shutdown') });
const ClusterMessage = z.union([RevokeMessage, ListeningMessage, ShutdownMessage]);

export type ClusterMessage = z.infer<typeof ClusterMessage>;

/** A message from the other side, or null for anything else (another library's IPC, a malformed one). */
export function readClusterMessage(message: unknown): ClusterMessage | null {
  const parsed = ClusterMessage.safeParse(message);
  return parsed.success ? parsed.data : null;
}

export interface Channel {
  send: (message: ClusterMessage) => void;
  onMessage: (listener: (message: ClusterMessage) => void) => void;
}

/**
 * A worker's revocations: kept here as before, and told to the primary, which tells every other worker,
 * so a session signed out through one worker is refused by all of them (the message leaves before the
 * sign-out's answer does).
 */
export function sharedRevocations(local: RevokedSessions, channel: Channel): RevokedSessions {
  channel.onMessage((message) => {
    if (message.type === 'ops-console:revoke') local.revoke(message.sid, message.exp, message.reason);
  });
  return {
    ...local,
    revoke(sid, exp, reason = 'signed-out') {
      local.revoke(sid, exp, reason);
      channel.send({ type: 'ops-console:revoke', sid, exp, reason });
    },
  };
}
