import { useId, useState, type SyntheticEvent } from 'react';
import { useLocation } from 'react-router-dom';
import type { PageSession, SignInProblem } from '../../api/page-data';
import { keyFormatProblem } from '../../model/key-format';
import { postSignIn } from '../../features/session/sign-in-post';
import { SESSION_ENDED_MESSAGES, SESSION_PATH, type SignOutReason } from '../../config/session';

export interface SignInScreenProps {
  apiTarget: string;
  isSimulator: boolean;
  signedOutBecause: SignOutReason | null;
  /** The console's server keeps no secret across restarts: no session outlives one, remembered or not. */
  sessionsEndOnRestart?: boolean;
  /** The sign-out happened in another tab of this browser. */
  signedOutElsewhere?: boolean;
  /** Why a sign-in posted before the script arrived (a plain form post) failed. */
  initialProblem?: SignInProblem | undefined;
  /** The console's server checked the key and opened this session. */
  onSignedIn: (session: PageSession) => void;
}

function signedOutNotice(reason: SignInScreenProps['signedOutBecause'], elsewhere: boolean) {
  if (reason === 'rejected') {
    return (
      <p role="alert" className="callout callout--error">
        Your API key was rejected (invalid or revoked), so you were signed out. Enter a valid key to go back to where you were.
      </p>
    );
  }
  if (reason === 'restarted' || reason === 'expired') {
    // The key was never asked about: nothing here may send the person to revoke a good key.
    return (
      <p role="alert" className="callout">
        {SESSION_ENDED_MESSAGES[reason]}
      </p>
    );
  }
  if (reason === 'revoked') {
    return (
      <p role="status" className="callout">
        You revoked the API key this console was using, so you were signed out. Sign in with another key.
      </p>
    );
  }
  if (reason === 'signed-out') {
    return (
      <p role="status" className="callout">
        {elsewhere ? 'You signed out in another tab. ' : 'You signed out. '}The console’s server no longer holds the key for this browser.
      </p>
    );
  }
  return null;
}

/**
 * The key screen, rendered by the server for a signed-out page. The form is a real form posting to the
 * console's server (it works before the script has arrived, or without it); with the script, the key is
 * posted the same way by fetch, the check can be cancelled, and the person stays on the address they asked for.
 */
export function SignInScreen({
  apiTarget,
  isSimulator,
  signedOutBecause,
  sessionsEndOnRestart = false,
  signedOutElsewhere = false,
  initialProblem,
  onSignedIn,
}: SignInScreenProps) {
  const keyId = useId();
  const hintId = useId();
  const { pathname, search, hash } = useLocation();
  const [visible, setVisible] = useState(false);
  const [checking, setChecking] = useState<AbortController | null>(null);
  const [problem, setProblem] = useState<SignInProblem | null>(initialProblem ?? null);

  async function submit(event: SyntheticEvent<HTMLFormElement>) {
    event.preventDefault();
    // Read from the form, not kept in state: the server renders this screen, and what was typed (or
    // ticked) before the script took the page over is in the fields, where React leaves it.
    const fields = new FormData(event.currentTarget);
    const typed = fields.get('api-key');
    const key = typeof typed === 'string' ? typed.trim() : '';
    const remember = fields.get('remember') !== null;
    const formatProblem = keyFormatProblem(key);
    if (formatProblem) {
      setProblem({ kind: 'invalid', message: formatProblem });
      return;
    }
    const attempt = new AbortController();
    setChecking(attempt);
    setProblem(null);
    try {
      const result = await postSignIn(key, remember, attempt.signal);
      // Signed in: the gate renders the page asked for in place of this screen.
      if (result.ok) onSignedIn(result.session);
      else if (!attempt.signal.aborted) setProblem(result.problem);
    } catch {
      if (!attempt.signal.aborted) setProblem({ kind: 'other', message: 'The key could not be checked. Try again.' });
    } finally {
      setChecking((current) => (current === attempt ? null : current));
    }
  }

  function cancel() {
    checking?.abort();
    setChecking(null);
    setProblem({ kind: 'other', message: 'Cancelled: the key was not checked.' });
  }

  return (
    <main className="key-screen" id="main">
      <h1>Ops Console</h1>
      <p>Watch your projects' operations as they happen. Sign in with an API key.</p>
      {!problem && signedOutNotice(signedOutBecause, signedOutElsewhere)}
      <form method="post" action={SESSION_PATH} onSubmit={(e) => void submit(e)} noValidate>
        <input type="hidden" name="return-to" value={`${pathname}${search}${hash}`} />
        <label htmlFor={keyId}>API key</label>
        <div className="key-screen__field">
          <input
            id={keyId}
            name="api-key"
            type={visible ? 'text' : 'password'}
            autoComplete="off"
            spellCheck={false}
            autoFocus
            aria-describedby={hintId}
            aria-invalid={problem?.kind === 'rejected' || problem?.kind === 'invalid' ? true : undefined}
          />
          <button type="button" aria-pressed={visible} onClick={() => setVisible((v) => !v)}>
            {visible ? 'Hide key' : 'Show key'}
          </button>
        </div>
        <p id={hintId} className="muted">
          Talking to {apiTarget}.{isSimulator && ' The demo key is printed in the terminal where the console was started.'}
        </p>
        <label className="checkbox">
          <input type="checkbox" name="remember" />
          Remember on this device
        </label>
        <p className="muted small">
          The key goes to the console’s server once and never stays in this page. Off: the session ends when the browser closes.{' '}
          {sessionsEndOnRestart
            ? 'On: it stays on this device until you sign out, but this console’s server keeps no secret across restarts, so either way a restart ends it.'
            : 'On: it lasts 30 days on this device, until you sign out.'}
        </p>
        {problem && (
          <div role="alert" className="callout callout--error">
            <p>{problem.message}</p>
            {problem.requestId && (
              <p className="muted">
                Request id: <code>{problem.requestId}</code>
              </p>
            )}
          </div>
        )}
        <div className="key-screen__actions">
          <button type="submit" className="primary" disabled={checking !== null}>
            {checking ? 'Checking key…' : 'Sign in'}
          </button>
          {checking && (
            <button type="button" onClick={cancel}>
              Cancel
            </button>
          )}
        </div>
      </form>
    </main>
  );
}
