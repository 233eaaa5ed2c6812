/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { opsConsole } from './server/vite-plugin.ts';
import { preloadDynamicEntry } from './scripts/preload-dynamic-entry.ts';

const port = Number(process.env.PORT ?? 5173);
const host = process.env.HOST ?? '127.0.0.1';

export default defineConfig({
  plugins: [react(), opsConsole(), preloadDynamicEntry('src/app/mount-app.tsx')],
  // The key screen says which API it talks to; the build and the server share one process env.
  define: { __API_TARGET__: JSON.stringify(process.env.API_URL ?? '') },
  server: { host, port, strictPort: true },
  preview: { host, port, strictPort: true },
  build: { target: 'es2022', sourcemap: false },
  test: {
    // CI (.ci/run) totals the run from this report; Playwright wipes test-results/ when it starts.
    ...(process.env.CI ? { reporters: ['default', 'json'], outputFile: { json: 'reports/unit.json' } } : {}),
    projects: [
      {
        extends: true,
        test: { name: 'node', include: ['test/**/*.test.ts'], exclude: ['test/e2e/**', 'test/api/**'], environment: 'node' },
      },
      {
        extends: true,
        test: {
          name: 'dom',
          // The wire layer resolves URLs against the page's origin, so its tests run in a DOM too.
          include: ['test/**/*.test.tsx', 'test/api/**/*.test.ts'],
          exclude: ['test/e2e/**'],
          environment: 'jsdom',
          // Whole-app renders of long tables are slow in jsdom on 2 cores.
          testTimeout: 20_000,
          setupFiles: ['test/support/setup-dom.ts'],
        },
      },
    ],
  },
});
