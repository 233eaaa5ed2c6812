/// <reference types="vitest/config" />
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin, type Rolldown } from 'vite';
import react from '@vitejs/plugin-react';
import { precompress } from './scripts/precompress.ts';
import { preloadDynamicEntry } from './scripts/preload-dynamic-entry.ts';

// The server tests that spend their time waiting (Postgres stopped and killed, takeovers timed out): `npm test` runs
// them on Node 22 beside the unit tests (SERVER_TESTS=waiting, one worker, in a process of its own), the rest after
// the browser lanes (SERVER_TESTS=rest, alone: the check runs beside the lanes); scripts/test.sh. The tests of the
// other child servers (restarts, shutdown, the DATA_DIR lock) stay in the rest, whose timing they were written
// against (docs/testing.md).
const WAITING_SERVER_TESTS = [
  'test/server/store/database-outage.test.ts',
  'test/server/store/connection-faults.test.ts',
  'test/server/store/store-down-at-start.test.ts',
  'test/server/archive/instances.test.ts',
];
const serverTests = process.env.SERVER_TESTS;
// Tests that set process.env.TZ to read times in another zone: a worker thread cannot change the zone its
// process's ICU reads (only the main thread's process.env can), so they run in a process of their own.
const ZONE_TESTS = ['test/lib/time-zone.test.ts', 'test/app/time-zone-switch.test.tsx'];

// The embedded store's worker thread (server/store/pglite-worker.ts) is a second entry of the server's build,
// dist/server/pglite-worker.js, and pglite-db.ts's WORKER_MODULE names that file relative to wherever the chunk that
// holds it lands (docs/architecture.md, "The store").
const PGLITE_WORKER = 'server/store/pglite-worker.ts';
const PGLITE_WORKER_LINE = "const WORKER_MODULE = './pglite-worker.ts';";
const PLACEHOLDER = '__ops_console_pglite_worker__';
function pgliteWorkerEntry(): Plugin {
  let emitted = false;
  return {
    name: 'pglite-worker-entry',
    enforce: 'pre',
    apply: (_config, env) => env.command === 'build' && env.isSsrBuild === true,
    buildStart() {
      emitted = true;
      this.emitFile({ type: 'chunk', id: PGLITE_WORKER, fileName: 'pglite-worker.js' });
    },
    transform(code, id) {
      if (!id.endsWith('server/store/pglite-db.ts') || !emitted) return undefined;
      if (!code.includes(PGLITE_WORKER_LINE)) throw new Error(`server/store/pglite-db.ts no longer says ${PGLITE_WORKER_LINE}`);
      return { code: code.replace(PGLITE_WORKER_LINE, `const WORKER_MODULE = '${PLACEHOLDER}';`), map: null };
    },
    // Relative to the chunk that holds it (dist/server or dist/server/assets).
    renderChunk(code, chunk) {
      if (!code.includes(PLACEHOLDER)) return undefined;
      const relative = path.posix.relative(path.posix.dirname(chunk.fileName), 'pglite-worker.js');
      return { code: code.replaceAll(PLACEHOLDER, relative.startsWith('.') ? relative : `./${relative}`), map: null };
    },
  };
}

// The first load (docs/benchmarks.md, "Initial JS"): main.tsx's own imports, then the app it imports at once
// (mount-app.tsx, preloaded with the HTML). Left to itself the bundler cuts what these share with the lazy screens
// into small chunks of their own, each named in the HTML and in every import of it (13 initial scripts before the
// audit screen, 15 after it). Two groups keep each part in one chunk (4 scripts with the bundler's runtime and
// mount-app.tsx's own, 1.4 KiB gzip less: docs/benchmarks-results.md): all of it is loaded at first paint anyway,
// and a lazy screen that shares a module imports a chunk already there. Two, not one: React must not evaluate
// before main.tsx has started a deep link's requests (scripts/preload-dynamic-entry.ts). mount-app.tsx stays a
// chunk of its own, the dynamic import that the manifest names (the browser tests hold it back).
const BOOT_ENTRY = fileURLToPath(new URL('./src/main.tsx', import.meta.url));
const APP_ENTRY = fileURLToPath(new URL('./src/app/mount-app.tsx', import.meta.url));
function firstLoadPart(part: 'boot' | 'app'): (moduleId: string, ctx: Rolldown.ChunkingContext) => string | null {
  // Found once a build, at the first module asked about (a build's context is read-only while it chunks).
  const found = new WeakMap<Rolldown.ChunkingContext, { boot: Set<string>; app: Set<string> }>();
  const closure = (ctx: Rolldown.ChunkingContext, from: string, besides: ReadonlySet<string>) => {
    const seen = new Set<string>();
    const next = ctx.getModuleInfo(from) ? [from] : [];
    for (let id = next.pop(); id !== undefined; id = next.pop()) {
      if (seen.has(id) || besides.has(id)) continue;
      seen.add(id);
      next.push(...(ctx.getModuleInfo(id)?.importedIds ?? []));
    }
    return seen;
  };
  return (moduleId, ctx) => {
    let parts = found.get(ctx);
    if (!parts) {
      const boot = closure(ctx, BOOT_ENTRY, new Set());
      // The server's build has no main.tsx: its chunks are left as the bundler cuts them.
      parts = { boot, app: boot.size === 0 ? new Set() : closure(ctx, APP_ENTRY, boot) };
      found.set(ctx, parts);
    }
    return parts[part].has(moduleId) && moduleId !== APP_ENTRY ? part : null;
  };
}

export default defineConfig({
  plugins: [react(), preloadDynamicEntry('src/app/mount-app.tsx'), precompress(), pgliteWorkerEntry()],
  // The client goes to dist/client (what the server serves); `npm run build` puts the server in dist/server.
  // The manifest tells the server which chunks each screen needs, to preload them on a server-rendered page.
  // No modulepreload polyfill: every browser the console supports (ES2022) preloads modules itself.
  // Chunks are named by their hash alone: a chunk's name is written in every import of it and in every list of
  // what a screen preloads, 0.7 KiB of the first load's 120 (gzip, 49 chunks; docs/benchmarks.md). The build's
  // manifest (.vite/manifest.json) says which source each chunk holds.
  build: {
    target: 'es2022',
    modulePreload: { polyfill: false },
    sourcemap: false,
    outDir: 'dist/client',
    emptyOutDir: true,
    manifest: true,
    rollupOptions: {
      output: {
        chunkFileNames: 'assets/[hash].js',
        codeSplitting: {
          groups: [
            { name: firstLoadPart('boot'), debugName: 'first load: main.tsx', priority: 2 },
            { name: firstLoadPart('app'), debugName: 'first load: the app', priority: 1 },
          ],
        },
      },
    },
  },
  test: {
    // CI (.ci/run) totals the run from this report; Playwright wipes test-results/ when it starts.
    ...(process.env.CI ? { reporters: ['default', 'json'], outputFile: { json: 'reports/unit.json' } } : {}),
    // Both cores: Vitest's default leaves one idle on a 2-core machine (cores - 1); docs/testing.md.
    maxWorkers: 2,
    // Worker threads, not processes: the same tests took a fifth less CPU (server tests 332 → 257 CPU-seconds, the
    // DOM's 221 → 194), mostly in starting and loading (docs/testing.md). Except the zone tests' project, and the
    // waiting tests: in threads, beside the lanes, three of them ran past their limits beside a second CI run.
    pool: serverTests === 'waiting' ? 'forks' : 'threads',
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: serverTests === 'waiting' ? WAITING_SERVER_TESTS : ['test/**/*.test.ts'],
          // `npm test` runs the server's tests once, on Node 22 (test:node22, what production runs), and sets
          // SERVER_TESTS_ON_NODE22=1 here: on Node 20 the server is exercised by two browser lanes and the
          // production install check. Run alone, `npm run test:unit` still runs them on Node 20 too.
          exclude: [
            'test/e2e/**',
            'test/api/**',
            ...ZONE_TESTS,
            ...(process.env.SERVER_TESTS_ON_NODE22 === '1' ? ['test/server/**'] : []),
            ...(serverTests === 'rest' ? WAITING_SERVER_TESTS : []),
          ],
          environment: 'node',
          // One module graph per worker, not per file: loading the server's modules again in each file was a fifth of
          // the server tests' CPU (Node 22's rest: 176 → 148 CPU-seconds; docs/testing.md). The tests that wait keep a
          // fresh one each: one at a time, they cost little.
          isolate: serverTests === 'waiting',
          // Starting a server, a Postgres database or a PGlite copy, in a hook or a test: past Vitest's 10 s (hooks) and
          // 5 s (tests) beside a second CI run.
          hookTimeout: 30_000,
          testTimeout: 30_000,
          // The store's tests share one throwaway Postgres server, started by the first that asks (test/support/postgres-server.ts).
          globalSetup: ['test/support/postgres-global-setup.ts', 'test/support/pglite-global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'dom',
          // The wire layer resolves URLs against the page's origin, so its tests run in a DOM too.
          include: ['test/**/*.test.tsx', 'test/api/**/*.test.ts'],
          exclude: ['test/e2e/**', ...ZONE_TESTS],
          environment: 'jsdom',
          isolate: false,
          // Whole-app renders of long tables are slow in jsdom on 2 cores (the longest, 1,300 rows refreshed, read and
          // paged to their end, 9 s in CI and twice that beside a second CI run); a wait inside is 10 s (test/support/setup-dom.ts).
          testTimeout: 30_000,
          setupFiles: ['test/support/setup-dom.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'zones',
          include: ZONE_TESTS,
          pool: 'forks',
          environment: 'jsdom',
          testTimeout: 30_000,
          setupFiles: ['test/support/setup-dom.ts'],
        },
      },
    ],
  },
});
