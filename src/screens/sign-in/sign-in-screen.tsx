import { useId, useState, type SyntheticEvent } from 'react';
import { isApiError } from '../../api/api-error';
import { fetchAuthDetails } from '../../api/auth';

export interface SignInScreenProps {
  apiTarget: string;
  isSimulator: boolean;
  signedOutBecause: 'signed-out' | 'rejected' | 'revoked' | null;
  onSignedIn: (apiKey: string, remember: boolean) => void;
}

type Problem = { kind: 'rejected' | 'unreachable' | 'server' | 'other'; message: string; requestId?: string | undefined };

function problemFrom(error: unknown): Problem {
  if (!isApiError(error)) return { kind: 'other', message: 'The key could not be checked. Try again.' };
  if (error.kind === 'network') {
    return { kind: 'unreachable', message: 'Could not reach the API, so the key was not checked. Check the connection and try again.' };
  }
  if (error.status === 401) return { kind: 'rejected', message: 'This key was rejected (invalid or revoked).', requestId: error.requestId };
  if (error.status >= 500) {
    return {
      kind: 'server',
      message: `The API is having trouble (HTTP ${error.status}), so the key was not checked. Try again in a moment.`,
      requestId: error.requestId,
    };
  }
  return { kind: 'other', message: `The key could not be checked: ${error.message}`, requestId: error.requestId };
}

export function SignInScreen({ apiTarget, isSimulator, signedOutBecause, onSignedIn }: SignInScreenProps) {
  const keyId = useId();
  const hintId = useId();
  const [apiKey, setApiKey] = useState('');
  const [visible, setVisible] = useState(false);
  const [remember, setRemember] = useState(false);
  const [checking, setChecking] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);

  async function submit(event: SyntheticEvent) {
    event.preventDefault();
    const key = apiKey.trim();
    if (!key) {
      setProblem({ kind: 'other', message: 'Enter an API key.' });
      return;
    }
    setChecking(true);
    setProblem(null);
    try {
      await fetchAuthDetails({ apiKey: key });
      onSignedIn(key, remember);
    } catch (error) {
      setProblem(problemFrom(error));
      setChecking(false);
    }
  }

  return (
    <main className="key-screen" id="main">
      <h1>Ops Console</h1>
      <p>Watch your projects' operations as they happen. Sign in with an API key.</p>
      {signedOutBecause === 'rejected' && !problem && (
        <p role="alert" className="callout callout--error">
          Your API key was rejected (invalid or revoked), so you were signed out. Enter a valid key to go back to
          where you were.
        </p>
      )}
      {signedOutBecause === 'revoked' && !problem && (
        <p role="status" className="callout">
          You revoked the API key this console was using, so you were signed out. Sign in with another key.
        </p>
      )}
      {signedOutBecause === 'signed-out' && !problem && (
        <p role="status" className="callout">
          You signed out. The key was removed from this browser.
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} noValidate>
        <label htmlFor={keyId}>API key</label>
        <div className="key-screen__field">
          <input
            id={keyId}
            name="api-key"
            type={visible ? 'text' : 'password'}
            autoComplete="off"
            spellCheck={false}
            autoFocus
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
            aria-describedby={hintId}
            aria-invalid={problem?.kind === 'rejected' ? true : undefined}
          />
          <button type="button" aria-pressed={visible} onClick={() => setVisible((v) => !v)}>
            {visible ? 'Hide key' : 'Show key'}
          </button>
        </div>
        <p id={hintId} className="muted">
          Talking to {apiTarget}.
          {isSimulator && ' The demo key is printed in the terminal where the console was started.'}
        </p>
        <label className="checkbox">
          <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
          Remember on this device
        </label>
        <p className="muted small">
          Off: the key is forgotten when this tab closes. On: it stays in this browser until you sign out.
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
        <button type="submit" className="primary" disabled={checking}>
          {checking ? 'Checking key…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
