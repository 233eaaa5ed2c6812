// The session's own routes: `POST /session` takes a key once (JSON from the key screen, or a plain form
// post before JavaScript has arrived), checks it against the API (`GET /auth`) and starts a session;
// `POST /session/sign-out` ends it; `GET /session` says what the page may know about it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import { keyKindOf } from '../../src/api/auth';
import type { PageData, SignInProblem } from '../../src/api/page-data';
import { AuthDetailsSchema } from '../../src/api/schemas';
import { KEY_REJECTED_MESSAGE, SESSION_PATH, SIGN_OUT_PATH } from '../../src/config/session';
import { keyFormatProblem } from '../../src/model/key-format';
import { sendError, sendJson } from '../http/answers';
import { MAX_FORM_BODY_BYTES, readBody } from '../http/body';
import { sameOriginPath } from '../http/paths';
import { READ_METHODS, type Handler } from '../http/route';
import type { ApiReader, ApiRefusal } from '../proxy/api-reader';
import { UPSTREAM_ERROR_CODE } from '../proxy/forward-proxy';
import type { Route } from './route-guard';
import type { Sessions } from './sessions';

/** How long the key check may take before the key screen hears that the API did not answer. */
export const SIGN_IN_CHECK_TIMEOUT_MS = 15_000;

const JsonSignInSchema = z.object({ key: z.string(), remember: z.optional(z.boolean()) });

interface SignInForm {
  key: string;
  remember: boolean;
  returnTo: string;
  /** JSON from the key screen's script, or a form post from a page without it. */
  viaForm: boolean;
}

export interface SessionRouteContext {
  sessions: Sessions;
  read: ApiReader;
  /** Answers a form post that failed with the app page, its data block saying why. */
  servePage: (req: IncomingMessage, res: ServerResponse, data: PageData, status: number) => Promise<void>;
  /** Team sign-in (docs/team.md): no key is taken here; sign-out goes on to the identity provider's own, where it offers one. */
  team?: { signOutTo?: ((req: IncomingMessage) => Promise<string | undefined>) | undefined } | undefined;
}

function isForm(req: IncomingMessage): boolean {
  return /^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '');
}

async function readSignIn(req: IncomingMessage): Promise<SignInForm | null> {
  const text = (await readBody(req, MAX_FORM_BODY_BYTES))?.toString('utf8') ?? '';
  if (isForm(req)) {
    const form = new URLSearchParams(text);
    return { key: form.get('api-key') ?? '', remember: form.get('remember') === 'on', returnTo: sameOriginPath(form.get('return-to') ?? '/'), viaForm: true };
  }
  try {
    const parsed = JsonSignInSchema.safeParse(JSON.parse(text));
    return parsed.success ? { key: parsed.data.key, remember: parsed.data.remember ?? false, returnTo: '/', viaForm: false } : null;
  } catch {
    return null;
  }
}

/** What the key screen shows for the API's (or this server's proxy's) refusal of the key check. */
function problemOf(refused: ApiRefusal): SignInProblem {
  const id = refused.requestId === undefined ? {} : { requestId: refused.requestId };
  if (refused.status === 401) return { kind: 'rejected', message: KEY_REJECTED_MESSAGE, ...id };
  if (refused.status === 0) return { kind: 'unreachable', message: `${refused.message} The key was not checked.`, ...id };
  if (refused.code === UPSTREAM_ERROR_CODE) return { kind: 'unreachable', message: `${refused.detail ?? refused.message} The key was not checked.`, ...id };
  if (refused.status >= 500 || refused.status === 429) {
    return {
      kind: 'server',
      message: `The API is having trouble (HTTP ${refused.status}${refused.detail ? `: ${refused.detail}` : ''}), so the key was not checked. Try again in a moment.`,
      ...id,
    };
  }
  return { kind: 'other', message: `The key could not be checked: ${refused.detail ?? `HTTP ${refused.status}`}`, ...id };
}

const STATUS_OF: Record<SignInProblem['kind'], number> = { rejected: 401, invalid: 400, unreachable: 502, server: 502, other: 400 };

async function signIn(req: IncomingMessage, res: ServerResponse, { sessions, read, servePage, team }: SessionRouteContext): Promise<void> {
  if (team) {
    await readBody(req, MAX_FORM_BODY_BYTES);
    sendError(res, 403, 'This console signs people in as themselves (docs/team.md): no API key is taken here.', 'team_sign_in');
    return;
  }
  const form = await readSignIn(req);
  if (!form) {
    sendError(res, 400, 'Send {"key": "...", "remember": false} as JSON, or the key screen’s form.', 'invalid');
    return;
  }
  const fail = async (problem: SignInProblem, status?: number) => {
    if (form.viaForm) await servePage(req, res, { session: sessions.describe(null), signIn: { problem, returnTo: form.returnTo } }, STATUS_OF[problem.kind]);
    else sendError(res, status !== undefined && status >= 400 ? status : STATUS_OF[problem.kind], problem.message, problem.kind, problem.requestId);
  };

  const key = form.key.trim();
  const formatProblem = keyFormatProblem(key);
  if (formatProblem) {
    await fail({ kind: 'invalid', message: formatProblem });
    return;
  }
  const clientGone = new AbortController();
  res.once('close', () => clientGone.abort());
  // Who the key is: the key travels in this in-process call's Authorization header only.
  const auth = await read(key, '/auth', AuthDetailsSchema, { signal: clientGone.signal, timeoutMs: SIGN_IN_CHECK_TIMEOUT_MS });
  if (clientGone.signal.aborted) return;
  if (!auth.ok) {
    const unreadable = auth.status >= 200 && auth.status < 300;
    if (unreadable)
      await fail({ kind: 'server', message: 'The API answered the key check with something the console could not read, so the key was not checked.' });
    else await fail(problemOf(auth), auth.status);
    return;
  }
  const { session, cookie } = sessions.start(req, key, keyKindOf(auth.data), form.remember);
  res.setHeader('Set-Cookie', cookie);
  if (form.viaForm) {
    res.statusCode = 303;
    res.setHeader('Location', form.returnTo);
    res.end();
  } else {
    sendJson(res, 200, sessions.describe(session));
  }
}

async function signOut(req: IncomingMessage, res: ServerResponse, { sessions, team }: SessionRouteContext): Promise<void> {
  res.setHeader('Set-Cookie', sessions.end(req));
  // Answered once the sign-out is in the store every instance reads: the next request may reach any of them.
  await sessions.spread();
  const elsewhere = await team?.signOutTo?.(req);
  if (isForm(req)) {
    res.statusCode = 303;
    res.setHeader('Location', elsewhere ?? '/');
    res.end();
  } else {
    sendJson(res, 200, { ...sessions.describe(null), ...(elsewhere === undefined ? {} : { signOutTo: elsewhere }) });
  }
}

/** Says what the page may know about the request's session, expiring a cookie that no longer opens one. */
function describeSession(req: IncomingMessage, res: ServerResponse, { sessions }: SessionRouteContext): Promise<void> {
  const current = sessions.read(req);
  if (current.state === 'ended') res.setHeader('Set-Cookie', sessions.expire(req));
  sendJson(res, 200, sessions.describe(current.state === 'open' ? current.session : null));
  return Promise.resolve();
}

/** The session's routes: `GET /session`, `POST /session` (sign in), `POST /session/sign-out`. */
export function sessionRoutes(context: SessionRouteContext): Route[] {
  const answer =
    (serve: (req: IncomingMessage, res: ServerResponse, context: SessionRouteContext) => Promise<void>): Handler =>
    ({ req, res }) => {
      res.setHeader('Cache-Control', 'no-store');
      return serve(req, res, context);
    };
  return [
    { method: READ_METHODS, url: SESSION_PATH, config: { needs: 'none' }, handler: answer(describeSession) },
    { method: 'POST', url: SESSION_PATH, config: { needs: 'none' }, handler: answer(signIn) },
    { method: 'POST', url: SIGN_OUT_PATH, config: { needs: 'none' }, handler: answer(signOut) },
  ];
}
