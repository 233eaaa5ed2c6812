import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface ScriptSize {
  file: string;
  how: 'entry' | 'script' | 'modulepreload';
  bytes: number;
  gzipBytes: number;
}

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}\\s*=\\s*["']([^"']*)["']`, 'i').exec(tag)?.[1];
}

/** Every script dist/index.html loads or modulepreloads, with its size gzipped at zlib level 9. */
export async function initialScripts(distDir: string): Promise<ScriptSize[]> {
  const html = await readFile(join(distDir, 'index.html'), 'utf8');
  const found: { file: string; how: ScriptSize['how'] }[] = [];
  for (const [tag] of html.matchAll(/<script\b[^>]*>/gi)) {
    const src = attribute(tag, 'src');
    if (src) found.push({ file: src, how: attribute(tag, 'type') === 'module' ? 'entry' : 'script' });
  }
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const href = attribute(tag, 'href');
    if (href && attribute(tag, 'rel')?.toLowerCase() === 'modulepreload') found.push({ file: href, how: 'modulepreload' });
  }
  if (!found.some((f) => f.how === 'entry')) throw new Error('dist/index.html loads no module script');
  const unique = found.filter((f, i) => found.findIndex((g) => g.file === f.file) === i);
  return Promise.all(
    unique.map(async ({ file, how }) => {
      if (/^[a-z]+:\/\//i.test(file)) throw new Error(`index.html loads a script from another origin: ${file}`);
      const body = await readFile(join(distDir, file.replace(/^\//, '')));
      return { file, how, bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length };
    }),
  );
}

/** The stylesheets index.html links, so a static page can use exactly the same CSS. */
export async function stylesheetHrefs(distDir: string): Promise<string[]> {
  const html = await readFile(join(distDir, 'index.html'), 'utf8');
  return [...html.matchAll(/<link\b[^>]*>/gi)]
    .map(([tag]) => tag)
    .filter((tag) => attribute(tag, 'rel')?.toLowerCase() === 'stylesheet')
    .map((tag) => attribute(tag, 'href'))
    .filter((href): href is string => href !== undefined);
}
