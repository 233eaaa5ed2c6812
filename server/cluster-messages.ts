// What the primary and its workers tell each other over cluster IPC, checked on arrival like any wire.
import * as z from 'zod/mini';
import type { RevokedSessions } from './session/revoked-sessions';

const Revocation = { sid: z.string(), exp: z.number(), reason: z.enum(['signed-out', 'rejected']) };
/** A revocation; with an `id`, its sender waits to hear (RevokedMessage) that every other worker has it. */
const RevokeMessage = z.object({ type: z.literal('ops-console:revoke'), ...Revocation, id: z.optional(z.string()) });
/** A worker has revocation `id` (to the primary); every other worker has it (to its sender). */
const RevokedMessage = z.object({ type: z.literal('ops-console:revoked'), id: z.string() });
/** A starting worker listens for revocations from now on (to the primary). */
const HelloMessage = z.object({ type: z.literal('ops-console:hello') });
/** The answer to a hello: every revocation still in force that the primary relayed before it. */
const RevocationsMessage = z.object({ type: z.literal('ops-console:revocations'), revocations: z.array(z.object(Revocation)) });
const ListeningMessage = z.object({ type: z.literal('ops-console:listening'), url: z.string() });
const ShutdownMessage = z.object({ type: z.literal('ops-console:shutdown') });
const ClusterMessage = z.union([RevokeMessage, RevokedMessage, HelloMessage, RevocationsMessage, ListeningMessage, ShutdownMessage]);

export type ClusterMessage = z.infer<typeof ClusterMessage>;
/** A revocation as the primary and its workers pass it on. */
export type Revocation = z.infer<typeof RevocationsMessage>['revocations'][number];

/** A message from the other side, or null for anything else (another library's IPC, a malformed one). */
export function readClusterMessage(message: unknown): ClusterMessage | null {
  const parsed = ClusterMessage.safeParse(message);
  return parsed.success ? parsed.data : null;
}

export interface Channel {
  send: (message: ClusterMessage) => void;
  onMessage: (listener: (message: ClusterMessage) => void) => void;
}

/** How long a sign-out waits to hear that every other worker has it: one too busy to say so by then gets it all the same, a little later. */
export const SPREAD_WAIT_MS = 2_000;

export interface WorkerRevocations {
  /** Resolves once the primary has told this worker every revocation still in force (or after the wait): serve after it. */
  ready: Promise<void>;
  /** The worker's list (`local`, with what was heard before it) as the server uses it: its own revocations told to the others. */
  share: (local: RevokedSessions) => RevokedSessions;
}

/**
 * A worker's revocations, shared with the other workers through the primary, so a session signed out through
 * one worker is refused by all of them:
 * - listened for from the worker's start, and asked for (hello) so that the primary tells it those made before
 *   it started (a worker starting, or started again after a crash, while others serve);
 * - its own told to the primary, which tells every other worker; `spread` resolves once they have all said
 *   they have it (or after `waitMs`): sign-out answers then, so the person's next request is refused
 *   whichever worker it reaches.
 */
export function workerRevocations(channel: Channel, { waitMs = SPREAD_WAIT_MS }: { waitMs?: number } = {}): WorkerRevocations {
  const heard: Revocation[] = [];
  let local: RevokedSessions | undefined;
  const take = (revocation: Revocation) => {
    if (local) local.revoke(revocation.sid, revocation.exp, revocation.reason);
    else heard.push(revocation);
  };
  const waiting = new Map<string, () => void>();
  const spreading = new Set<Promise<void>>();
  let sent = 0;
  let answered: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    answered = resolve;
    setTimeout(resolve, waitMs).unref();
  });
  channel.onMessage((message) => {
    if (message.type === 'ops-console:revoke') {
      // Said at once, even before `share`: the worker serves nothing before it has taken what it heard.
      take(message);
      if (message.id !== undefined) channel.send({ type: 'ops-console:revoked', id: message.id });
    }
    if (message.type === 'ops-console:revocations') {
      for (const revocation of message.revocations) take(revocation);
      answered();
    }
    if (message.type === 'ops-console:revoked') waiting.get(message.id)?.();
  });
  channel.send({ type: 'ops-console:hello' });
  return {
    ready,
    share(list) {
      local = list;
      heard.splice(0).forEach(take);
      return {
        ...list,
        revoke(sid, exp, reason = 'signed-out') {
          list.revoke(sid, exp, reason);
          const id = `${process.pid}:${++sent}`;
          const told = new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              waiting.delete(id);
              resolve();
            };
            const timer = setTimeout(done, waitMs);
            timer.unref();
            waiting.set(id, done);
          });
          spreading.add(told);
          void told.then(() => spreading.delete(told));
          channel.send({ type: 'ops-console:revoke', sid, exp, reason, id });
        },
        spread: async () => {
          await Promise.all([...spreading, list.spread()]);
        },
      };
    },
  };
}
