// The servers some tests start as child processes (their fixtures, `test/server/**/fixtures/*.ts`), built as
// `npm run build` builds the server: once per change of the code they run, by Vite (the same config, so the
// migrations come bundled as in dist/server), into node_modules/.cache, where their packages resolve. Started from
// source with tsx each child spent 4 CPU-seconds compiling before it listened, twice what the build's takes, and
// under load that start ran past the tests' limits (docs/testing.md, child servers).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { cachedFolder } from './cached-folder';

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

let built: Promise<string> | undefined;

/** The built script of a fixture (building them all first if the code changed), to start with `node <script>`. */
export async function childScript(fixture: ChildFixture): Promise<string> {
  built ??= buildOnce();
  return path.join(await built, `${fixture}.js`);
}

/** The files of `source` (a folder or one file) the children's build may read, in an order that does not change. */
async function sourceFiles(source: string): Promise<string[]> {
  if (!existsSync(source)) return [];
  if (!(await stat(source)).isDirectory()) return [source];
  const names = await readdir(source, { recursive: true });
  return names
    .filter((name) => /\.(?:tsx?|sql|json)$/.test(name))
    .sort()
    .map((name) => path.join(source, name));
}

async function buildOnce(): Promise<string> {
  const hash = createHash('sha256');
  for (const source of SOURCES) for (const file of await sourceFiles(source)) hash.update(file).update(await readFile(file));
  const dir = path.join(CACHE, hash.digest('hex').slice(0, 16));
  return cachedFolder(dir, 'The child servers', async (building) => {
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
  });
}
