// The session's own routes: `POST /session` takes a key once (JSON from the key screen, or a plain form
// post before JavaScript has arrived), checks it against the API (`GET /auth`) and starts a session;
// `POST /session/sign-out` ends it; `GET /session` says what the page may know about it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import { keyKindOf } from '../../src/api/auth';
import type { PageData, SignInProblem } from '../../src/api/page-data';
import { AuthDetailsSchema, ApiErrorBodySchema } from '../../src/api/schemas';
import { KEY_REJECTED_MESSAGE, SESSION_PATH, SIGN_OUT_PATH } from '../../src/config/session';
import { keyFormatProblem } from '../../src/features/session/key-format';
import { UPSTREAM_ERROR_CODE } from '../proxy/forward-proxy';
import { API_PREFIX, jsonErrorResponse, readBody, sendFetchResponse, sendJson, type ApiFetch } from '../http/node-bridge';
import { sameOriginPath } from '../pages/page';
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
  fetchApi: ApiFetch;
  /** Answers a form post that failed with the app page, its data block saying why. */
  servePage: (req: IncomingMessage, res: ServerResponse, data: PageData, status: number) => Promise<void>;
}

function isForm(req: IncomingMessage): boolean {
  return /^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '');
}

async function readSignIn(req: IncomingMessage): Promise<SignInForm | null> {
  const text = (await readBody(req, 16 * 1024))?.toString('utf8') ?? '';
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

/** What the key screen shows for an answer of the API (or of this server's proxy) to the key check. */
async function problemOf(response: Response): Promise<SignInProblem> {
  const requestId = response.headers.get('x-neon-ret-request-id') ?? undefined;
  let body: z.infer<typeof ApiErrorBodySchema> | undefined;
  try {
    const parsed = ApiErrorBodySchema.safeParse(await response.clone().json());
    if (parsed.success) body = parsed.data;
  } catch {
    // Not JSON: the status alone speaks.
  }
  const withId = requestId ?? body?.request_id;
  const id = withId === undefined ? {} : { requestId: withId };
  if (response.status === 401) return { kind: 'rejected', message: KEY_REJECTED_MESSAGE, ...id };
  if (body?.code === UPSTREAM_ERROR_CODE) return { kind: 'unreachable', message: `${body.message} The key was not checked.`, ...id };
  if (response.status >= 500 || response.status === 429) {
    return { kind: 'server', message: `The API is having trouble (HTTP ${response.status}${body?.message ? `: ${body.message}` : ''}), so the key was not checked. Try again in a moment.`, ...id };
  }
  return { kind: 'other', message: `The key could not be checked: ${body?.message || `HTTP ${response.status}`}`, ...id };
}

const STATUS_OF: Record<SignInProblem['kind'], number> = { rejected: 401, invalid: 400, unreachable: 502, server: 502, other: 400 };

/** Asks the API who the key is; the key travels in this in-process call's Authorization header only. */
async function checkKey(fetchApi: ApiFetch, key: string, clientGone: AbortSignal): Promise<Response> {
  const deadline = AbortSignal.timeout(SIGN_IN_CHECK_TIMEOUT_MS);
  const headers = new Headers({ authorization: `Bearer ${key}`, accept: 'application/json' });
  const waited = new Promise<Response>((resolve) => {
    deadline.addEventListener('abort', () => resolve(jsonErrorResponse(504, `The API did not answer within ${SIGN_IN_CHECK_TIMEOUT_MS / 1000} s.`, UPSTREAM_ERROR_CODE)), { once: true });
  });
  const answer = fetchApi({ method: 'GET', target: `${API_PREFIX}/auth`, headers, signal: AbortSignal.any([deadline, clientGone]) }).then((response) =>
    response.type === 'error' ? jsonErrorResponse(502, 'The API closed the connection without answering.', UPSTREAM_ERROR_CODE) : response,
  );
  return Promise.race([answer, waited]);
}

async function signIn(req: IncomingMessage, res: ServerResponse, { sessions, fetchApi, servePage }: SessionRouteContext): Promise<void> {
  const form = await readSignIn(req);
  if (!form) {
    await sendFetchResponse(res, jsonErrorResponse(400, 'Send {"key": "...", "remember": false} as JSON, or the key screen’s form.'));
    return;
  }
  const fail = async (problem: SignInProblem, response?: Response) => {
    if (form.viaForm) {
      await servePage(req, res, { session: sessions.describe(null), signIn: { problem, returnTo: form.returnTo } }, STATUS_OF[problem.kind]);
    } else {
      const status = response?.status ?? STATUS_OF[problem.kind];
      sendJson(res, status >= 400 ? status : 502, { code: problem.kind, message: problem.message, request_id: problem.requestId });
    }
  };

  const key = form.key.trim();
  const formatProblem = keyFormatProblem(key);
  if (formatProblem) {
    await fail({ kind: 'invalid', message: formatProblem });
    return;
  }
  const clientGone = new AbortController();
  res.once('close', () => clientGone.abort());
  const response = await checkKey(fetchApi, key, clientGone.signal);
  if (clientGone.signal.aborted) return;
  if (!response.ok) {
    await fail(await problemOf(response), response);
    return;
  }
  const auth = AuthDetailsSchema.safeParse(await response.json().catch(() => null));
  if (!auth.success) {
    await fail({ kind: 'server', message: 'The API answered the key check with something the console could not read, so the key was not checked.' });
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

async function signOut(req: IncomingMessage, res: ServerResponse, { sessions }: SessionRouteContext): Promise<void> {
  res.setHeader('Set-Cookie', sessions.end(req));
  // Answered once every worker refuses the session: the next request may reach any of them.
  await sessions.spread();
  if (isForm(req)) {
    res.statusCode = 303;
    res.setHeader('Location', '/');
    res.end();
  } else {
    sendJson(res, 200, sessions.describe(null));
  }
}

/** Answers a request under /session; false when it is not one of these routes. */
export async function serveSessionRoute(req: IncomingMessage, res: ServerResponse, context: SessionRouteContext): Promise<boolean> {
  const path = (req.url ?? '').split('?')[0];
  res.setHeader('Cache-Control', 'no-store');
  if (path === SESSION_PATH && req.method === 'POST') {
    await signIn(req, res, context);
    return true;
  }
  if (path === SIGN_OUT_PATH && req.method === 'POST') {
    await signOut(req, res, context);
    return true;
  }
  if (path === SESSION_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
    const current = context.sessions.read(req);
    if (current.state === 'ended') res.setHeader('Set-Cookie', context.sessions.expire(req));
    sendJson(res, 200, context.sessions.describe(current.state === 'open' ? current.session : null));
    return true;
  }
  if (path === SESSION_PATH || path === SIGN_OUT_PATH) {
    await sendFetchResponse(res, jsonErrorResponse(405, `Method ${req.method ?? ''} is not allowed here.`));
    return true;
  }
  return false;
}
