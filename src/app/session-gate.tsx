import { useSyncExternalStore } from 'react';
import { Outlet } from 'react-router-dom';
import type { SignInProblem } from '../api/page-data';
import { apiTarget } from '../config/api-target';
import { useSessionStore } from '../features/session/session-store';
import { SignInScreen } from '../screens/sign-in/sign-in-screen';

/**
 * Without a session, the key screen renders in place of the page asked for; the URL stays, so after
 * signing in (or back in after a 401) the person lands where they were.
 */
export function SessionGate({ formProblem }: { formProblem?: SignInProblem | undefined }) {
  const session = useSessionStore();
  const state = useSyncExternalStore(session.subscribe, session.getState, session.getState);
  if (!state.signedIn) {
    return (
      <SignInScreen
        apiTarget={apiTarget().label}
        isSimulator={apiTarget().isSimulator}
        signedOutBecause={state.signedOutBecause}
        sessionsEndOnRestart={state.endsOnRestart}
        signedOutElsewhere={state.signedOutElsewhere}
        // Only the first key screen of the page: a later sign-out has its own reason.
        initialProblem={state.signedOutBecause === null ? formProblem : undefined}
        onSignIn={(key, remember, signal) => session.signIn(key, remember, signal)}
      />
    );
  }
  return <Outlet />;
}
