// Proves that `npm start`'s server runs from a production install: copies the build (dist/), package.json
// and the lock file into a temp folder, installs with `npm ci --omit=dev` (no devDependency: no vite, no
// tsx), starts dist/server/main.js there, signs in with the demo key, reads the API through the session,
// and stops it with SIGTERM. Run after `npm run build`. Prints one line per check; exits non-zero on a failure.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.join(import.meta.dirname, '..');
const KEY = 'production-install-check-key-0000';

function check(ok, what) {
  console.log(`${ok ? 'ok' : 'FAILED'}: ${what}`);
  if (!ok) process.exitCode = 1;
  return ok;
}

const dir = await mkdtemp(path.join(tmpdir(), 'ops-console-prod-'));
let child;
try {
  for (const file of ['package.json', 'package-lock.json', '.npmrc']) await cp(path.join(ROOT, file), path.join(dir, file));
  await cp(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
  execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  check(
    !existsSync(path.join(dir, 'node_modules', 'vite')) && !existsSync(path.join(dir, 'node_modules', 'tsx')),
    'the production install has no devDependency (no vite, no tsx)',
  );
  // The name server/store/pglite-db.ts looks for: without it a fresh store runs PGlite's initdb (seconds of CPU).
  const pglite = JSON.parse(await readFile(path.join(dir, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'));
  check(
    existsSync(path.join(dir, 'dist', 'server', `store-image-${pglite.version}.tar.gz`)),
    'the build holds the image of a fresh store for the installed PGlite',
  );

  child = spawn(process.execPath, ['dist/server/main.js'], {
    cwd: dir,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SIM_API_KEY: KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 20_000;
  while (!/Ops Console: http:\/\/\S+/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const origin = /Ops Console: (http:\/\/[^/\s]+)/.exec(output)[1];
  check((await fetch(`${origin}/healthz`)).status === 200, 'GET /healthz answers 200');
  const signIn = await fetch(`${origin}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: KEY }) });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
  check(signIn.status === 200 && cookie.startsWith('__Host-ops_session='), 'the demo key signs in (POST /session sets the session cookie)');
  const projects = await fetch(`${origin}/api/v2/projects?limit=1`, { headers: { cookie } });
  check(projects.status === 200 && (await projects.json()).projects.length === 1, 'the simulator answers /api/v2 through the session');
  const page = await (await fetch(`${origin}/`, { headers: { cookie } })).text();
  check(page.includes('"signedIn":true') && !page.includes(KEY), 'the page says signed in, without the key');
  check(
    page.includes('<h1 tabindex="-1">Projects</h1>') && page.includes('"renderedAt":'),
    'the page comes rendered by the server, with the data it was rendered from',
  );
  child.kill('SIGTERM');
  check((await exited) === 0, 'SIGTERM stops it cleanly (exit 0)');
} catch (error) {
  check(false, error instanceof Error ? error.message : String(error));
} finally {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
}
