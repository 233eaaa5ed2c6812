import '@testing-library/jest-dom/vitest';
import { cleanup, configure, getConfig, prettyDOM } from '@testing-library/react';
import { afterEach, beforeAll, vi } from 'vitest';

// Whole-app renders with deferred rows can take over the default 1 s on 2 busy cores; a wait that
// is never met still fails, only later.
configure({ asyncUtilTimeout: 10_000, getElementError: elementError });

/**
 * Testing Library's own error for a query that found nothing, with the page's markup in its message, written out
 * only when the message is read: a `findBy…` or `waitFor` builds one on every try that has not found yet and drops
 * it, and printing the page each time was 4 % of the DOM tests' busy CPU (docs/testing.md).
 */
function elementError(message: string | null, container: Element): Error {
  const error = new Error();
  error.name = 'TestingLibraryElementError';
  let written: string | undefined;
  Object.defineProperty(error, 'message', {
    configurable: true,
    get: () => (written ??= [message, `Ignored nodes: comments, ${getConfig().defaultIgnore}\n${prettyDOM(container) || ''}`].filter(Boolean).join('\n\n')),
  });
  return error;
}

// The DOM project runs its files one after another in a worker's one jsdom (vite.config.ts: isolate false,
// half the CPU time of a fresh environment per file). The console's own modules still start fresh in each
// file (its request log, poll-sharing registries, the tickers of use-now), so no file sees another's state;
// React, Testing Library and the other packages load once.
vi.resetModules();

// As main.tsx does before a signed-out page renders: the key screen's code (loaded on demand) is in.
beforeAll(async () => {
  await (await import('../../src/app/screen-modules')).keyScreen.load();
});

afterEach(() => {
  cleanup();
  sessionStorage.clear();
  localStorage.clear();
});
