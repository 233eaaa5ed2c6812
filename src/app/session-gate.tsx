import { Suspense, useEffect, useSyncExternalStore } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import type { SignInProblem } from '../api/page-data';
import { apiTarget } from '../config/api-target';
import { useSessionStore } from '../features/session/session-store';
import { lazyComponent } from '../lib/code-module';
import { keyScreen } from './screen-modules';

const SignInScreen = lazyComponent(keyScreen);

/** Team sign-in (docs/team.md): no key screen; signing in again is the identity provider's. */
function TeamSignedOut() {
  const { pathname, search } = useLocation();
  return (
    <main id="main">
      <h1>Signed out</h1>
      <p>
        <a href={`/auth/sign-in?return=${encodeURIComponent(`${pathname}${search}`)}`}>Sign in</a> with your organization’s account.
      </p>
    </main>
  );
}
const noop = () => undefined;

/**
 * Without a session, the key screen renders in place of the page asked for; the URL stays, so after
 * signing in (or back in after a 401) the person lands where they were.
 */
export function SessionGate({ formProblem }: { formProblem?: SignInProblem | undefined }) {
  const session = useSessionStore();
  const state = useSyncExternalStore(session.subscribe, session.getState, session.getState);
  // Signed in, the key screen's code comes once the page is drawn: a sign-out (or a 401) later shows it at once.
  useEffect(() => {
    if (state.signedIn) keyScreen.load().catch(noop);
  }, [state.signedIn]);
  if (!state.signedIn && state.team) return <TeamSignedOut />;
  if (!state.signedIn) {
    return (
      <Suspense
        fallback={
          <p className="muted" role="status">
            Loading…
          </p>
        }
      >
        <SignInScreen
          apiTarget={apiTarget().label}
          isSimulator={apiTarget().isSimulator}
          signedOutBecause={state.signedOutBecause}
          sessionsEndOnRestart={state.endsOnRestart}
          signedOutElsewhere={state.signedOutElsewhere}
          // Only the first key screen of the page: a later sign-out has its own reason.
          initialProblem={state.signedOutBecause === null ? formProblem : undefined}
          onSignedIn={(opened) => session.signedIn(opened)}
        />
      </Suspense>
    );
  }
  return <Outlet />;
}
