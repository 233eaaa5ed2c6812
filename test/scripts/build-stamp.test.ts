// `npm start`'s staleness rule (scripts/build-stamp.js): it reuses dist/ only when it was built from the very files
// in the tree now, and builds when anything it reads changed, when no build is there, or when a build stopped half-way.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildIsCurrent, clearStamp, writeStamp } from '../../scripts/build-stamp.js';

let root: string;

async function put(rel: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), text);
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'build-stamp-'));
  await put('src/main.tsx', 'export {};\n');
  await put('server/main.ts', 'export {};\n');
  await put('package-lock.json', '{}\n');
  await put('dist/server/main.js', '// built\n');
  await put('dist/client/index.html', '<!doctype html>\n');
});

afterEach(() => rm(root, { recursive: true, force: true }));

describe("npm start's build", () => {
  it('is reused when it was built from the tree as it is', () => {
    writeStamp(root);
    expect(buildIsCurrent(root)).toBe(true);
  });

  it('is built again when a source, a new file or the installed versions changed', async () => {
    writeStamp(root);
    await put('src/main.tsx', 'export const changed = 1;\n');
    expect(buildIsCurrent(root)).toBe(false);

    writeStamp(root);
    await put('sim/seed.ts', 'export {};\n');
    expect(buildIsCurrent(root)).toBe(false);

    writeStamp(root);
    await put('package-lock.json', '{"lockfileVersion":3}\n');
    expect(buildIsCurrent(root)).toBe(false);
  });

  it('is built again when a file moves, even with the same bytes', async () => {
    await put('src/a.ts', 'export {};\n');
    writeStamp(root);
    await rm(path.join(root, 'src/a.ts'));
    await put('src/b.ts', 'export {};\n');
    expect(buildIsCurrent(root)).toBe(false);
  });

  it('is built when there is none (a fresh clone), or a build stopped half-way', async () => {
    writeStamp(root);
    await rm(path.join(root, 'dist/server'), { recursive: true });
    expect(buildIsCurrent(root)).toBe(false);

    await put('dist/server/main.js', '// built\n');
    writeStamp(root);
    clearStamp(root);
    expect(buildIsCurrent(root)).toBe(false);
  });

  it('ignores what the build does not read (tests, docs, dist itself)', async () => {
    writeStamp(root);
    await put('test/a.test.ts', 'export {};\n');
    await put('docs/a.md', '# a\n');
    await put('dist/client/extra.js', '\n');
    expect(buildIsCurrent(root)).toBe(true);
  });
});
