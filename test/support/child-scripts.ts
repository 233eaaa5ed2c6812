// The servers some tests start as child processes (their fixtures, `test/server/**/fixtures/*.ts`), built as
// `npm run build` builds the server: once per change of the code they run, by Vite (the same config, so the
// migrations come bundled as in dist/server), into node_modules/.cache, where their packages resolve. Started from
// source with tsx each child spent 4 CPU-seconds compiling before it listened, twice what the build's takes, and
// under load that start ran past the tests' limits (docs/testing.md, child servers).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';

const CACHE = path.resolve('node_modules/.cache/ops-console-children');
/** What a child runs: the fixtures, and the code they import. */
const SOURCES = ['server', 'sim', 'src', 'test/server', 'test/support/child-scripts.ts', 'vite.config.ts', 'package-lock.json'];
const FIXTURES = {
  'store-server': 'test/server/store/fixtures/store-server.ts',
  'simulator-server': 'test/server/store/fixtures/simulator-server.ts',
  'pool-handover': 'test/server/store/fixtures/pool-handover.ts',
  'drain-server': 'test/server/process/fixtures/drain-server.ts',
  'instances-server': 'test/server/process/fixtures/instances-server.ts',
} as const;
export type ChildFixture = keyof typeof FIXTURES;

/** How long a build by another worker may take before a waiting one gives up. */
const BUILD_WAIT_MS = 120_000;

let built: Promise<string> | undefined;

/** The built script of a fixture (building them all first if the code changed), to start with `node <script>`. */
export async function childScript(fixture: ChildFixture): Promise<string> {
  built ??= buildOnce();
  return path.join(await built, `${fixture}.js`);
}

async function* sourceFiles(entry: string): AsyncGenerator<string> {
  if (!existsSync(entry)) return;
  if (!entry.endsWith('.ts') && !entry.endsWith('.json')) {
    for (const child of (await readdir(entry, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const next = path.join(entry, child.name);
      if (child.isDirectory()) yield* sourceFiles(next);
      else if (/\.(?:tsx?|sql|json)$/.test(child.name)) yield next;
    }
    return;
  }
  yield entry;
}

async function buildOnce(): Promise<string> {
  const hash = createHash('sha256');
  for (const source of SOURCES) for await (const file of sourceFiles(source)) hash.update(file).update(await readFile(file));
  const dir = path.join(CACHE, hash.digest('hex').slice(0, 16));
  if (existsSync(dir)) return dir;
  await mkdir(CACHE, { recursive: true });
  const lock = `${dir}.lock`;
  try {
    await mkdir(lock);
  } catch {
    // Another worker (or the other Node 22 run) is building: wait for its rename, or for its lock to go.
    const deadline = Date.now() + BUILD_WAIT_MS;
    while (!existsSync(dir) && existsSync(lock) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    if (existsSync(dir)) return dir;
    throw new Error('The child servers were not built by the worker that started to.');
  }
  try {
    const building = `${dir}.building`;
    await rm(building, { recursive: true, force: true });
    const { build } = await import('vite');
    await build({
      configFile: path.resolve('vite.config.ts'),
      logLevel: 'warn',
      build: {
        ssr: true,
        outDir: building,
        emptyOutDir: true,
        manifest: false,
        copyPublicDir: false,
        rollupOptions: {
          input: Object.fromEntries(Object.entries(FIXTURES).map(([name, file]) => [name, path.resolve(file)])),
          output: { entryFileNames: '[name].js' },
        },
      },
    });
    await rename(building, dir);
    return dir;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
