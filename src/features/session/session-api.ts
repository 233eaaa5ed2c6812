import { SIGN_OUT_PATH } from '../../config/session';

// The console server's sign-out route (server/session/session-routes.ts), as the page calls it; the sign-in
// is posted by the key screen (sign-in-post.ts).

/** Ends the session on the server (it expires the cookie); failures are left alone: the page is signed out either way. */
export async function postSignOut(): Promise<void> {
  try {
    await fetch(SIGN_OUT_PATH, { method: 'POST', headers: { Accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' });
  } catch {
    // Offline: the cookie stays until it expires or the next request meets a 401; nothing else holds the key.
  }
}
