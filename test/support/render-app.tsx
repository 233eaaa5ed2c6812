import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from '../../src/app/app';

export const SESSION_KEY_STORAGE = 'ops-console.api-key';

/**
 * Renders the whole console at `path`, as a person arriving by deep link would, optionally already
 * signed in with `apiKey`, with the production retry policy (a test of one failure may turn it off).
 */
export function renderApp(path: string, { apiKey, retries = true }: { apiKey?: string; retries?: boolean } = {}) {
  if (apiKey) sessionStorage.setItem(SESSION_KEY_STORAGE, apiKey);
  window.history.pushState({}, '', path);
  const user = userEvent.setup();
  return { user, ...render(<App retries={retries} />) };
}
