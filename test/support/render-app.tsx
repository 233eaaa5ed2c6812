import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from '../../src/app/app';
import { holdSession } from './console-server';

/**
 * Renders the whole console at `path`, as a person arriving by deep link would, optionally already
 * signed in with `apiKey` (the stand-in server holds it; the page gets what the data block would say),
 * with the production retry policy (a test of one failure may turn it off).
 */
export function renderApp(path: string, { apiKey, retries = true }: { apiKey?: string; retries?: boolean } = {}) {
  const session = apiKey ? holdSession(apiKey) : undefined;
  window.history.pushState({}, '', path);
  const user = userEvent.setup();
  return { user, ...render(<App retries={retries} session={session} />) };
}
