// Fault injection for the simulator: a plan of rules that make matching requests slow, fail (500/503),
// find the project busy (423), rate-limited (429 + Retry-After), malformed (not JSON), schema-breaking, dropped, or carrying
// operation statuses and actions the console has never seen. Off by default (an empty plan). Tests set
// it directly; `npm run dev` (and `npm start` with SIM_FAULTS=1) expose it at `/__sim/faults`, where
// the console's server mounts it (server/http/node-bridge.ts names the path, server/routes.ts mounts it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import type { Random } from './random';
import { isLoopbackHost } from '../src/lib/hosts';

const MAX_LATENCY_MS = 120_000;
const MAX_RETRY_AFTER_SECONDS = 3_600;
const MAX_RULES = 20;

export const FaultSchema = z.discriminatedUnion('type', [
  /** Waits before answering; combines with any other fault. */
  z.object({ type: z.literal('latency'), ms: z.int().check(z.minimum(0), z.maximum(MAX_LATENCY_MS)) }),
  /**
   * The platform's server-side failures, or 423 as when another client's operation holds the project;
   * Retry-After is optional (the platform sends it on some 503s).
   */
  z.object({
    type: z.literal('status'),
    status: z.union([z.literal(423), z.literal(500), z.literal(502), z.literal(503), z.literal(504)]),
    retryAfterSeconds: z.optional(z.int().check(z.minimum(0), z.maximum(MAX_RETRY_AFTER_SECONDS))),
  }),
  z.object({ type: z.literal('rate-limit'), retryAfterSeconds: z.int().check(z.minimum(0), z.maximum(MAX_RETRY_AFTER_SECONDS)) }),
  /** 200 with a body that is not JSON at all (a truncated document). */
  z.object({ type: z.literal('malformed-json') }),
  /** 200 with valid JSON of the wrong shape: every field turned into the wrong type. */
  z.object({ type: z.literal('schema-break') }),
  /** The connection closes without any response. */
  z.object({ type: z.literal('drop-connection') }),
  /** The real answer, with every operation's status and/or action replaced by values no client knows yet. */
  z.object({
    type: z.literal('unknown-values'),
    status: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    action: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    /** Only these operations (default: every one): `status: 'failed'` on one id fails just that operation. */
    ids: z.optional(z.array(z.string().check(z.maxLength(200))).check(z.minLength(1), z.maxLength(1_000))),
  }),
  /** The real answer without these operations, as the platform's retention drops old ones (the archive keeps them). */
  z.object({ type: z.literal('hide-operations'), ids: z.array(z.string().check(z.maxLength(200))).check(z.minLength(1), z.maxLength(1_000)) }),
]);
export type Fault = z.infer<typeof FaultSchema>;

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export const FaultRuleSchema = z.object({
  fault: FaultSchema,
  /** Only requests with this method (default: any). */
  method: z.optional(z.enum(METHODS)),
  /**
   * Only requests whose path below /api/v2 matches: segments compared literally, `*` is any one
   * segment, a final `**` any rest (`/projects/*\/operations`, `/projects/**`). Default: every path.
   */
  path: z.optional(z.string().check(z.regex(/^\/[^\s?#]*$/), z.maxLength(300))),
  /** Share of matching requests that get the fault, 0..1 (default 1). */
  share: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
  /** Only the next N matching requests that get the fault; then the rule is spent (default: until cleared). */
  count: z.optional(z.int().check(z.minimum(1), z.maximum(1_000_000))),
});
export type FaultRule = z.infer<typeof FaultRuleSchema>;

export const FaultPlanSchema = z.object({ rules: z.array(FaultRuleSchema).check(z.maxLength(MAX_RULES)) });
export type FaultPlan = z.infer<typeof FaultPlanSchema>;

/** What happens to one request: an optional wait, then at most one fault that shapes the answer. */
export interface FaultDecision {
  latencyMs: number;
  fault: Exclude<Fault, { type: 'latency' }> | undefined;
}

export interface FaultInjector {
  /** The rules in force, `count` being what is left of each. */
  plan(): FaultPlan;
  set(plan: FaultPlan): void;
  clear(): void;
  /** Decides, and spends counts, for one request to `path` (below /api/v2). */
  decide(method: string, path: string): FaultDecision;
  /** How many requests got a fault (latency included) since the plan was last set. */
  injected(): number;
}

const NO_FAULT: FaultDecision = { latencyMs: 0, fault: undefined };

/** Whether `path` (below /api/v2, no query) matches a rule's pattern. */
export function pathMatches(pattern: string, path: string): boolean {
  const want = pattern.split('/').slice(1);
  const got = path.split('/').slice(1);
  for (let i = 0; i < want.length; i++) {
    const segment = want[i];
    if (segment === '**' && i === want.length - 1) return true;
    if (i >= got.length) return false;
    if (segment !== '*' && segment !== got[i]) return false;
  }
  return want.length === got.length;
}

/** `random` decides `share`; tests pass a seeded one (sim/random.ts) to get the same faults every run. */
export function createFaultInjector({ random = Math.random }: { random?: Random } = {}): FaultInjector {
  let rules: FaultRule[] = [];
  let injected = 0;
  return {
    plan: () => ({ rules: rules.map((rule) => ({ ...rule })) }),
    set(plan) {
      rules = plan.rules.map((rule) => ({ ...rule }));
      injected = 0;
    },
    clear() {
      rules = [];
      injected = 0;
    },
    injected: () => injected,
    decide(method, path) {
      if (rules.length === 0) return NO_FAULT;
      let latencyMs = 0;
      let fault: FaultDecision['fault'];
      for (const rule of rules) {
        if (rule.method !== undefined && rule.method !== method.toUpperCase()) continue;
        if (rule.path !== undefined && !pathMatches(rule.path, path)) continue;
        // A second answer-shaping fault cannot apply once one has: leave its count and dice alone.
        if (rule.fault.type !== 'latency' && fault !== undefined) continue;
        if (rule.share !== undefined && rule.share < 1 && !(random() < rule.share)) continue;
        if (rule.count !== undefined) rule.count -= 1;
        if (rule.fault.type === 'latency') latencyMs += rule.fault.ms;
        else fault = rule.fault;
      }
      rules = rules.filter((rule) => rule.count === undefined || rule.count > 0);
      if (latencyMs === 0 && fault === undefined) return NO_FAULT;
      injected += 1;
      return { latencyMs, fault };
    },
  };
}

// ---- shaping an answer -------------------------------------------------------------------------------

/** A JSON document cut off mid-way, as a proxy that dropped the end of a response would leave it. */
export function malformedJsonText(body: unknown): string {
  const text = JSON.stringify(body ?? { operations: [] });
  return `${text.slice(0, Math.max(1, Math.floor(text.length / 2)))}<!-- upstream closed -->`;
}

/** Valid JSON that no schema of the API accepts: every value has the wrong type (arrays hold a number). */
export function schemaBreakingBody(body: unknown): unknown {
  if (Array.isArray(body)) return [42];
  if (typeof body === 'object' && body !== null) {
    return Object.fromEntries(
      Object.entries(body).map(([key, value]) => [
        key,
        Array.isArray(value) ? 'not-a-list' : typeof value === 'string' ? 42 : typeof value === 'object' ? 42 : 'not-a-number',
      ]),
    );
  }
  return { unexpected: true };
}

export const UNKNOWN_STATUS = 'quarantined';
export const UNKNOWN_ACTION = 'rebalance_storage';

function withUnknown(operation: unknown, fault: Extract<Fault, { type: 'unknown-values' }>): unknown {
  if (typeof operation !== 'object' || operation === null) return operation;
  if (fault.ids && !('id' in operation && typeof operation.id === 'string' && fault.ids.includes(operation.id))) return operation;
  const replaceStatus = fault.status !== undefined || fault.action === undefined;
  const replaceAction = fault.action !== undefined || fault.status === undefined;
  return {
    ...operation,
    ...(replaceStatus ? { status: fault.status ?? UNKNOWN_STATUS } : {}),
    ...(replaceAction ? { action: fault.action ?? UNKNOWN_ACTION } : {}),
  };
}

/**
 * The body with its operations (`operations: [...]` or `operation: {...}`) given unknown values;
 * with neither field given, both status and action are replaced.
 */
export function withUnknownValues(body: unknown, fault: Extract<Fault, { type: 'unknown-values' }>): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const result: Record<string, unknown> = { ...body };
  if (Array.isArray(result.operations)) result.operations = result.operations.map((op: unknown) => withUnknown(op, fault));
  if ('operation' in result) result.operation = withUnknown(result.operation, fault);
  return result;
}

/** The answer's operations list without the hidden ones. */
export function withoutOperations(body: unknown, fault: Extract<Fault, { type: 'hide-operations' }>): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('operations' in body) || !Array.isArray(body.operations)) return body;
  const hidden = new Set(fault.ids);
  return {
    ...body,
    operations: body.operations.filter(
      (op: unknown) => !(typeof op === 'object' && op !== null && 'id' in op && typeof op.id === 'string' && hidden.has(op.id)),
    ),
  };
}

// ---- the control route ---------------------------------------------------------------------------------

const MAX_CONTROL_BODY_BYTES = 64 * 1024;

async function readText(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_CONTROL_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * `GET` the plan, `PUT` a new one (JSON, validated), `DELETE` to turn every fault off. No API key, but
 * only from a loopback address; `PUT` must be `application/json`, so a web page elsewhere cannot send
 * it without a CORS preflight, which this route never grants.
 */
export function createFaultControl(faults: FaultInjector): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    if (!isLoopbackHost(req.socket.remoteAddress ?? '')) {
      sendJson(res, 403, { message: 'The fault control only answers requests from this machine.' });
      return;
    }
    const view = () => ({ ...faults.plan(), injected: faults.injected() });
    switch (req.method) {
      case 'GET':
        sendJson(res, 200, view());
        return;
      case 'DELETE':
        faults.clear();
        sendJson(res, 200, view());
        return;
      case 'PUT': {
        if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
          sendJson(res, 415, { message: 'Send the plan as application/json.' });
          return;
        }
        const text = await readText(req);
        if (text === undefined) {
          sendJson(res, 413, { message: 'The plan is too large.' });
          return;
        }
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          sendJson(res, 400, { message: 'The plan is not valid JSON.' });
          return;
        }
        const parsed = FaultPlanSchema.safeParse(json);
        if (!parsed.success) {
          const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'plan'}: ${issue.message}`);
          sendJson(res, 400, { message: 'The plan does not match the fault plan schema.', issues });
          return;
        }
        faults.set(parsed.data);
        sendJson(res, 200, view());
        return;
      }
      default:
        res.setHeader('allow', 'GET, PUT, DELETE');
        sendJson(res, 405, { message: `${req.method ?? 'This method'} is not allowed here.` });
    }
  };
}
