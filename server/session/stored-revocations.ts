// Sign-out on every instance: revocations live in the store (revoked_sessions) and each process keeps
// all those still in force in memory, so a request's check stays a synchronous look-up. A sign-out holds
// on this instance at once and is written to the store (PGlite not opened yet, one process: when it opens,
// or at the latest when the server stops, so a restart still refuses the cookie); the store
// announces it (NOTIFY) and every instance listening on a connection of its own reads it at once, reads
// again whatever it may have missed each time it starts listening (a lost connection), and reads what was
// added every `pollMs` besides, should a notification not come. Nothing is dropped: a write the store
// could not take (it is down) is kept and written when it returns, and sign-out answers once its write
// committed (or after SPREAD_WAIT_MS, holding here meanwhile). What waits for the store is also kept on disk
// (pending-sign-outs.ts) and read back at start, so a restart before the store returns does not forget it.
import * as z from 'zod/mini';
import { settledWithin } from '../lib/deadline';
import type { Log } from '../log/logger';
import { createOutage } from '../log/outage';
import type { Db } from '../store/db';
import { pruneRevocations, REVOCATIONS_CHANNEL, revocationsSince, storeRevocation } from '../store/revoked-sessions';
import type { Store } from '../store/store';
import { createPendingSignOuts, pendingSignOutsDir } from './pending-sign-outs';
import { createRevokedSessions, type RevocationReason, type RevokedSessions } from './revoked-sessions';

export const REVOCATION_POLL_MS = 5_000;
/** How long a sign-out waits for its write before answering (it holds on this instance either way). */
export const SPREAD_WAIT_MS = 2_000;
const PRUNE_EVERY_MS = 60 * 60_000;
// Revocations read again on each poll: a write that committed just after the previous poll's read is not missed.
const OVERLAP_MS = 10_000;

export interface StoredRevocations extends RevokedSessions {
  /** Every revocation in force read once (when the store is open at start) before the server answers. */
  ready: Promise<void>;
  stop: () => Promise<void>;
}

// An announcement is the store's own message, still checked as any wire is; one that does not read is a cue to read the store.
const AnnouncementSchema = z.object({ sid: z.string(), expires_ms: z.number(), reason: z.enum(['signed-out', 'rejected']) });

function announcementOf(payload: string): z.infer<typeof AnnouncementSchema> | undefined {
  try {
    const parsed = AnnouncementSchema.safeParse(JSON.parse(payload));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

interface Pending {
  sid: string;
  exp: number;
  reason: RevocationReason;
  written: Promise<void>;
  done: () => void;
}

export function createStoredRevocations(
  store: Pick<Store, 'kind' | 'db' | 'opened' | 'onOpen'> & Partial<Pick<Store, 'atStart'>>,
  {
    now = Date.now,
    pollMs = REVOCATION_POLL_MS,
    log,
    pendingDir = pendingSignOutsDir(undefined),
  }: {
    now?: () => number;
    pollMs?: number;
    log: Log;
    /** Where sign-outs not yet in the store are kept meanwhile (pending-sign-outs.ts; DATA_DIR's folder). */
    pendingDir?: string;
  },
): StoredRevocations {
  const local = createRevokedSessions(now, Number.POSITIVE_INFINITY);
  const pending = new Map<string, Pending>();
  const onDisk = createPendingSignOuts(pendingDir);
  let diskRefused = false;
  let readUpTo = 0;
  let prunedAt = now();
  let timer: NodeJS.Timeout | undefined;
  let stopListening: (() => Promise<void>) | undefined;
  let reading: Promise<void> = Promise.resolve();
  let flushing: Promise<void> | undefined;
  let stopped = false;
  let listening = false;
  // Sign-outs of this instance waiting to hear their own announcement: the store has then told every listener.
  const echoes = new Map<string, () => void>();
  const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));
  // One line when the store stops taking sign-outs, one when it takes them again: not one a second.
  const outage = createOutage(log, {
    event: 'sessions.store_unavailable',
    over: 'Sessions: the store answers again',
    then: 'sign-outs made meanwhile are written',
  });
  const failed = (what: string, error: unknown) =>
    outage.failed(`Sessions: ${what} (${describe(error)}); sign-outs hold on this instance and are written when the store answers`);
  const recovered = () => outage.recovered();

  const read = async (db: Db) => {
    const started = now();
    for (const row of await revocationsSince(db, Math.max(0, readUpTo - OVERLAP_MS), new Date(started))) local.revoke(row.sid, row.expires_ms, row.reason);
    readUpTo = started;
    if (started - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = started;
      await pruneRevocations(db, new Date(started));
    }
  };
  const readNow = (db: Db) => {
    reading = reading.then(() => read(db)).then(recovered, (error: unknown) => failed('could not read sign-outs from the store', error));
    return reading;
  };
  const first = (): Pending | undefined => pending.values().next().value;
  // Writes every sign-out not yet in the store, oldest first; what fails stays for the next try.
  const flush = (): Promise<void> => {
    flushing ??= (async () => {
      try {
        const db = await store.db();
        // Sign-outs made while this one writes are written in the same go.
        for (let entry = first(); entry; entry = first()) {
          if (entry.exp > now()) await storeRevocation(db, entry.sid, new Date(entry.exp), new Date(now()), entry.reason);
          pending.delete(entry.sid);
          onDisk.forget(entry.sid);
          entry.done();
        }
        recovered();
      } catch (error) {
        failed('could not write a sign-out to the store', error);
      } finally {
        flushing = undefined;
      }
    })();
    return flushing;
  };

  const hold = (sid: string, exp: number, reason: RevocationReason) => {
    let done: () => void = () => undefined;
    const written = new Promise<void>((resolve) => (done = resolve));
    pending.set(sid, { sid, exp, reason, written, done });
  };
  // Sign-outs a previous run (or another instance on this folder) kept and could not write: refused from the first request.
  for (const entry of onDisk.load(now())) {
    local.revoke(entry.sid, entry.exp, entry.reason);
    hold(entry.sid, entry.exp, entry.reason);
  }
  if (pending.size > 0)
    log(`Sessions: ${pending.size} sign-out${pending.size === 1 ? '' : 's'} kept in ${onDisk.dir} refused again; written when the store answers`, {
      event: 'sessions.sign_outs_reloaded',
    });

  const ready = new Promise<void>((resolve) => {
    store.onOpen((db) => {
      void readNow(db).then(resolve);
      if (stopped) return;
      void flush();
      stopListening = db.listen?.(REVOCATIONS_CHANNEL, {
        onMessage: (payload) => {
          const heard = announcementOf(payload);
          if (!heard) {
            void readNow(db);
            return;
          }
          local.revoke(heard.sid, heard.expires_ms, heard.reason);
          echoes.get(heard.sid)?.();
        },
        onListening: () => {
          listening = true;
          void readNow(db);
        },
        onLost: () => {
          listening = false;
        },
      });
      timer = setInterval(() => {
        void readNow(db);
        if (pending.size > 0) void flush();
      }, pollMs);
      timer.unref();
    });
    // Not open once what was kept at start could be read (a fresh DATA_DIR, a store that will not open, Postgres
    // down): nothing to wait for now. The embedded store opening in the background is waited for (compose.ts
    // bounds the wait of a request that carries a session).
    void (store.atStart ?? Promise.resolve()).then(() => {
      if (!store.opened()) resolve();
    });
  });

  return {
    ready,
    isRevoked: local.isRevoked,
    reasonOf: local.reasonOf,
    size: local.size,
    revoke(sid, exp, reason = 'signed-out') {
      local.revoke(sid, exp, reason);
      if (exp <= now() || pending.has(sid)) return;
      hold(sid, exp, reason);
      try {
        onDisk.keep({ sid, exp, reason });
        diskRefused = false;
      } catch (error) {
        if (!diskRefused)
          log(`Sessions: a sign-out could not be kept in ${onDisk.dir} (${describe(error)}); it holds in memory until the store has it`, {
            event: 'sessions.sign_out_not_kept',
            level: 'warn',
          });
        diskRefused = true;
      }
      // PGlite's first start holds the process for seconds: a sign-out does not pay it (it holds here meanwhile).
      if (store.opened() || store.kind === 'postgres') void flush();
    },
    async spread() {
      const waiting = [...pending.values()];
      // The embedded store not open yet: no write is under way (it is made when the store opens), and PGlite's one
      // process is every instance there is, already refusing these sessions: nothing to wait for.
      if (waiting.length === 0 || (store.kind === 'pglite' && !store.opened())) return;
      // Heard back on this instance's own listening connection: the store told every other one at the same moment.
      const heard = listening ? waiting.map((entry) => new Promise<void>((resolve) => echoes.set(entry.sid, resolve))) : [];
      await settledWithin(Promise.all([...waiting.map((entry) => entry.written), ...heard]), SPREAD_WAIT_MS);
      for (const entry of waiting) echoes.delete(entry.sid);
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await stopListening?.();
      await reading;
      const inForce = [...pending.values()].filter((entry) => entry.exp > now()).length;
      if (inForce > 0) {
        // The embedded store's first start takes seconds: paid here, once, so a restart still refuses these cookies.
        if (!store.opened() && store.kind === 'pglite')
          log(`Sessions: writing ${inForce} sign-out${inForce === 1 ? '' : 's'} to the store before exiting`, { event: 'sessions.writing_sign_outs' });
        await flush();
      }
      await flushing;
    },
  };
}
