// The follower of what is watched (docs/live.md, "What the server follows"): on the one instance that leads
// the collector, it reads what the pages of every instance have open (live_watches), once for the whole
// deployment: an operation, or a project's newest operations, every FOLLOW_BUSY_MS while it is in flight,
// at the collector's pace (ARCHIVE_INTERVAL_MS) otherwise, within a budget of ARCHIVE_BUDGET requests a
// minute of its own. Each status it had not seen goes into the change feed (server/store/live-changes.ts),
// which every instance's streams read. How many pages, tabs or instances watch changes nothing here.
import * as z from 'zod/mini';
import { OperationSchema, type Operation } from '../../src/api/schemas';
import { isInFlight } from '../../src/model/operation-status';
import type { Log } from '../log/logger';
import { createOutage } from '../log/outage';
import type { ApiReader } from '../proxy/api-reader';
import type { Seal } from '../seal/seal';
import type { Db } from '../store/db';
import { activeWatches, appendChanges, pruneChanges, type NewChange } from '../store/live-changes';
import { realClock, type Clock } from '../lib/clock';

/** How often a watched operation in flight (or a watched project with work in flight) is read. */
export const FOLLOW_BUSY_MS = 1_000;
/** How many of a watched project's newest operations are read. */
export const FOLLOW_PAGE = 20;
/** A target the API refused (403/404/401) is left alone this long. */
const REFUSED_PAUSE_MS = 60_000;
/** The feed and the watches are pruned this often (the rows' own ages decide what goes). */
const PRUNE_EVERY_MS = 5 * 60_000;

const OperationReadSchema = z.object({ operation: z.unknown() });
const OperationsReadSchema = z.object({ operations: z.array(z.unknown()) });

export interface FollowerOptions {
  db: Db;
  read: ApiReader;
  seal: Seal;
  /** ARCHIVE_BUDGET: the most requests a minute the follower sends. */
  budgetPerMinute: number;
  /** ARCHIVE_INTERVAL_MS: the pace of a watched target with nothing in flight. */
  idleMs: number;
  busyMs?: number;
  clock?: Clock;
  log: Log;
}

export interface Follower {
  /** API requests sent so far (the bench). */
  requests: () => number;
  stop: () => Promise<void>;
}

interface Target {
  readAt: number;
  busy: boolean;
  /** Each operation's status (and updated_at) as last seen. */
  seen: Map<string, string>;
  pausedUntil: number;
}

const versionOf = (op: Operation) => `${op.status}\u0000${op.updated_at}`;

export function startFollower(options: FollowerOptions): Follower {
  const { db, read, seal, log, clock = realClock } = options;
  const busyMs = options.busyMs ?? FOLLOW_BUSY_MS;
  const stopped = new AbortController();
  const targets = new Map<string, Target>();
  const sentAt: number[] = [];
  let sent = 0;
  let prunedAt = clock.now();

  const withinBudget = () => {
    const now = clock.now();
    while (sentAt.length > 0 && (sentAt[0] ?? 0) <= now - 60_000) sentAt.shift();
    return sentAt.length < options.budgetPerMinute;
  };

  const follow = async (projectId: string, operationId: string, sealedKey: string, target: Target): Promise<NewChange[]> => {
    const key = seal.open('watch-key', sealedKey);
    if (key === null) return [];
    sentAt.push(clock.now());
    sent++;
    const project = encodeURIComponent(projectId);
    const path = operationId ? `/projects/${project}/operations/${encodeURIComponent(operationId)}` : `/projects/${project}/operations?limit=${FOLLOW_PAGE}`;
    const answer = operationId
      ? await read(key, path, OperationReadSchema, { signal: stopped.signal })
      : await read(key, path, OperationsReadSchema, { signal: stopped.signal });
    target.readAt = clock.now();
    if (!answer.ok) {
      if (answer.status === 401 || answer.status === 403 || answer.status === 404) target.pausedUntil = clock.now() + REFUSED_PAUSE_MS;
      return [];
    }
    const bodies = 'operation' in answer.data ? [answer.data.operation] : answer.data.operations;
    const changes: NewChange[] = [];
    let busy = false;
    for (const body of bodies) {
      const parsed = OperationSchema.safeParse(body);
      if (!parsed.success || parsed.data.project_id !== projectId) continue;
      const op = parsed.data;
      busy ||= isInFlight(op, clock.now());
      const version = versionOf(op);
      const before = target.seen.get(op.id);
      target.seen.set(op.id, version);
      // The first read of a project's page tells only what is in flight (its ended history the page has); an operation's, always.
      if (before === version || (before === undefined && !operationId && !isInFlight(op, clock.now()))) continue;
      changes.push({ projectId, operationId: op.id, status: op.status, operation: body });
    }
    target.busy = busy;
    return changes;
  };

  const turn = async () => {
    const now = clock.now();
    const watches = await activeWatches(db, new Date(now));
    const live = new Set<string>();
    const changes: NewChange[] = [];
    for (const watch of watches) {
      const name = `${watch.project_id}/${watch.operation_id}`;
      live.add(name);
      let target = targets.get(name);
      if (!target) {
        target = { readAt: 0, busy: true, seen: new Map(), pausedUntil: 0 };
        targets.set(name, target);
      }
      const due = target.readAt + (target.busy ? busyMs : options.idleMs);
      if (now < due || now < target.pausedUntil || !withinBudget() || stopped.signal.aborted) continue;
      changes.push(...(await follow(watch.project_id, watch.operation_id, watch.sealed_key, target)));
    }
    for (const name of targets.keys()) if (!live.has(name)) targets.delete(name);
    await appendChanges(db, changes);
    if (now - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = now;
      await pruneChanges(db, new Date(now));
    }
  };

  // Said once when turns start failing, and once when they work again (server/log/outage.ts).
  const following = createOutage(log, {
    event: 'live.follow_failed',
    over: 'Live: following what is watched works again',
    failed: ['failed turn', 'failed turns'],
  });
  const loop = (async () => {
    while (!stopped.signal.aborted) {
      try {
        await turn();
        following.recovered();
      } catch (error) {
        following.failed(`Live: could not follow what is watched (${error instanceof Error ? error.message : String(error)}); trying again`);
      }
      await clock.wait(Math.min(busyMs, 1_000) / 4, stopped.signal);
    }
  })();

  return {
    requests: () => sent,
    async stop() {
      stopped.abort();
      await loop;
    },
  };
}
