import * as z from 'zod/mini';
import { PageSessionSchema, SignInProblemKindSchema, type PageSession, type SignInProblem } from '../../api/page-data';
import { ApiErrorBodySchema } from '../../api/schemas';
import { KEY_REJECTED_MESSAGE, SESSION_PATH } from '../../config/session';

// The console server's sign-in route (server/session/session-routes.ts), as the key screen calls it: the key is
// posted once, here, and never kept; what comes back is what the page may know (PageSession). With the key
// screen's code, not in the first load of every page (the sign-out is session-api.ts).

export type SignInResult = { ok: true; session: PageSession } | { ok: false; problem: SignInProblem };

function problemFromBody(status: number, body: z.infer<typeof ApiErrorBodySchema> | undefined, requestId: string | null): SignInProblem {
  const kind = SignInProblemKindSchema.safeParse(body?.code);
  const id = requestId ?? body?.request_id;
  const withId = id ? { requestId: id } : {};
  if (kind.success && body) return { kind: kind.data, message: body.message, ...withId };
  if (status === 401) return { kind: 'rejected', message: KEY_REJECTED_MESSAGE, ...withId };
  return { kind: 'server', message: `The console’s server could not check the key (HTTP ${status}). Try again in a moment.`, ...withId };
}

/** Posts the key to the console's server, which checks it against the API and opens the session. */
export async function postSignIn(key: string, remember: boolean, signal: AbortSignal): Promise<SignInResult> {
  let response: Response;
  try {
    response = await fetch(SESSION_PATH, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ key, remember }),
      credentials: 'same-origin',
      cache: 'no-store',
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    return {
      ok: false,
      problem: { kind: 'unreachable', message: 'Could not reach the console’s server, so the key was not checked. Check the connection and try again.' },
    };
  }
  const json: unknown = await response.json().catch(() => null);
  if (response.ok) {
    const session = PageSessionSchema.safeParse(json);
    if (session.success && session.data.signedIn) return { ok: true, session: session.data };
    return { ok: false, problem: { kind: 'server', message: 'The console’s server answered the sign-in with something the console could not read.' } };
  }
  const body = ApiErrorBodySchema.safeParse(json);
  return { ok: false, problem: problemFromBody(response.status, body.success ? body.data : undefined, response.headers.get('x-neon-ret-request-id')) };
}
