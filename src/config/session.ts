import * as z from 'zod/mini';

// The session's routes and what is said when one ends, written once: the console's server
// (server/session/), the page (features/session, the key screen) and the component
// tests' stand-in for the server (test/support/console-server.ts) all import these.

export const SESSION_PATH = '/session';
export const SIGN_OUT_PATH = '/session/sign-out';

/** The API refused the key itself (401 from the API): only here may the console blame the key. */
export const KEY_REJECTED_MESSAGE = 'This key was rejected (invalid or revoked).';

/**
 * Why a session cookie no longer opens a session, as the server tells the page (the `code` of its 401,
 * and the page's data block): the key was never asked about in any of these cases.
 * - `restarted`: the cookie could not be opened (the server restarted with a new secret, or SESSION_SECRET changed);
 * - `expired`: its 12 hours (30 days when remembered) are over;
 * - `signed-out`: it was signed out on this server.
 */
export const SessionEndSchema = z.enum(['restarted', 'expired', 'signed-out']);
export type SessionEnd = z.infer<typeof SessionEndSchema>;

/** The `code` of the server's own 401 for a request whose session has ended (the API's 401s never carry it). */
export const SESSION_ENDED_CODES: Record<SessionEnd, string> = {
  restarted: 'session_restarted',
  expired: 'session_expired',
  'signed-out': 'session_signed_out',
};

export const NOT_SIGNED_IN_CODE = 'not_signed_in';
export const NOT_SIGNED_IN_MESSAGE = 'Not signed in: sign in with an API key on the console’s key screen.';

export const SESSION_ENDED_MESSAGES: Record<SessionEnd, string> = {
  restarted: "Your session ended: the console's server restarted. Sign in again.",
  expired: 'Your session ended: it expired. Sign in again.',
  'signed-out': 'Your session ended: it was signed out. Sign in again.',
};

/**
 * The `code` of the server's own 401 for a request of a session the API already refused (a 401 from the API
 * on another of its requests ended it): the key was rejected, as that request was told. Not a SessionEnd:
 * the page reads it as any 401 of the API's.
 */
export const KEY_REJECTED_CODE = 'session_key_rejected';

/** The session end a 401's `code` names; undefined for any other 401 (the API's, or KEY_REJECTED_CODE: the key was rejected). */
export function sessionEndOfCode(code: string | undefined): SessionEnd | undefined {
  if (code === NOT_SIGNED_IN_CODE) return 'signed-out';
  return SessionEndSchema.options.find((end) => SESSION_ENDED_CODES[end] === code);
}

/** Why the key screen is showing again: the person signed out, the API refused the key, it was revoked here, or the session ended. */
export const SignOutReasonSchema = z.enum(['signed-out', 'rejected', 'revoked', 'restarted', 'expired']);
export type SignOutReason = z.infer<typeof SignOutReasonSchema>;
