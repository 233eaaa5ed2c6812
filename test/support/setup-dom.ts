import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// Whole-app renders with deferred rows can take over the default 1 s on 2 busy cores; a wait that
// is never met still fails, only later.
configure({ asyncUtilTimeout: 10_000 });

// The DOM project runs its files one after another in a worker's one jsdom (vite.config.ts: isolate false,
// half the CPU time of a fresh environment per file). The console's own modules still start fresh in each
// file (its request log, poll-sharing registries, the tickers of use-now), so no file sees another's state;
// React, Testing Library and the other packages load once.
vi.resetModules();

afterEach(() => {
  cleanup();
  sessionStorage.clear();
  localStorage.clear();
});
