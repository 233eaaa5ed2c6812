import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeAll, vi } from 'vitest';

// Whole-app renders with deferred rows can take over the default 1 s on 2 busy cores; a wait that
// is never met still fails, only later.
configure({ asyncUtilTimeout: 10_000 });

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
