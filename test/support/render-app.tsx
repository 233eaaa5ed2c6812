import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { PageSession } from '../../src/api/page-data';
import { App } from '../../src/app/app';
import { holdSession } from './console-server';

/**
 * Renders the whole console at `path`, as a person arriving by deep link would, optionally already
 * signed in with `apiKey` (the console server holds the session; the page gets what the data block would
 * say) or with a `session` the test has made, with the production retry policy (a test of one failure may
 * turn it off).
 */
export function renderApp(path: string, { apiKey, session, retries = true }: { apiKey?: string; session?: PageSession; retries?: boolean } = {}) {
  const signedIn = session ?? (apiKey ? holdSession(apiKey) : undefined);
  window.history.pushState({}, '', path);
  const user = userEvent.setup();
  return { user, ...render(<App retries={retries} session={signedIn} />) };
}
