// `npm start` reuses a build that is current (docs/deploying.md#npm-start): the build writes a hash
// of everything it reads into dist/, and a start rebuilds only when that hash no longer matches the tree (or no
// build is there, as in a fresh clone). `node scripts/build-stamp.js clear|write|start`.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the two `vite build`s read: the sources, the static files, their configuration and the installed versions. */
export const BUILD_INPUTS = ['src', 'server', 'sim', 'public', 'scripts', 'index.html', 'vite.config.ts', 'tsconfig.json', 'package.json', 'package-lock.json'];
/** Where the build keeps the hash of its inputs (dist/client and dist/server are emptied by each build; this is beside them). */
export const STAMP_FILE = path.join('dist', 'build-inputs.sha256');
/** What a start needs from the build. */
const BUILT = [path.join('dist', 'server', 'main.js'), path.join('dist', 'client', 'index.html')];

/** Every file under `rel` (a file or a folder), relative to `root`, in a fixed order. */
function filesOf(root, rel) {
  const full = path.join(root, rel);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [rel];
  return readdirSync(full)
    .sort()
    .flatMap((name) => filesOf(root, path.join(rel, name)));
}

/** The hash of the build's inputs under `root`: each file's path and bytes. */
export function inputsHash(root) {
  const hash = createHash('sha256');
  for (const file of BUILD_INPUTS.flatMap((rel) => filesOf(root, rel))) {
    hash.update(`${file.split(path.sep).join('/')}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** True when dist/ under `root` was built from exactly the inputs there now. */
export function buildIsCurrent(root) {
  if (!BUILT.every((file) => existsSync(path.join(root, file)))) return false;
  const stamp = path.join(root, STAMP_FILE);
  return existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === inputsHash(root);
}

/** Records that dist/ was built from the inputs there now (`hash`: as they were when the build began). */
export function writeStamp(root, hash = inputsHash(root)) {
  writeFileSync(path.join(root, STAMP_FILE), `${hash}\n`);
}

/** A build that fails or is cut off half-way leaves no stamp, so the next start builds again. */
export function clearStamp(root) {
  rmSync(path.join(root, STAMP_FILE), { force: true });
}

const main = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (main) {
  const root = process.cwd();
  const command = process.argv[2];
  if (command === 'clear') clearStamp(root);
  else if (command === 'write') writeStamp(root);
  else if (command === 'start') {
    if (buildIsCurrent(root)) {
      console.log('Build: dist/ is current (its sources are unchanged), not rebuilding');
    } else {
      const build = spawnSync('npm', ['run', '-s', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
      if (build.status !== 0) process.exit(build.status ?? 1);
    }
  } else {
    console.error('usage: node scripts/build-stamp.js clear|write|start');
    process.exit(2);
  }
}
