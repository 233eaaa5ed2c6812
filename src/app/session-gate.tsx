import { useSyncExternalStore } from 'react';
import { Outlet } from 'react-router-dom';
import { apiTarget } from '../config/api-target';
import { useSessionStore } from '../features/session/session-store';
import { SignInScreen } from '../screens/sign-in/sign-in-screen';

/**
 * Without a key, the key screen renders in place of the page asked for; the URL stays, so after
 * signing in (or back in after a 401) the person lands where they were.
 */
export function SessionGate() {
  const session = useSessionStore();
  const state = useSyncExternalStore(session.subscribe, session.getState);
  if (!state.apiKey) {
    return (
      <SignInScreen
        apiTarget={apiTarget.label}
        isSimulator={apiTarget.isSimulator}
        signedOutBecause={state.signedOutBecause}
        onSignedIn={(key, remember) => session.signIn(key, remember)}
      />
    );
  }
  return <Outlet />;
}
