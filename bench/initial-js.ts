import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { SourceMapConsumer, type RawSourceMap } from 'source-map-js';

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

/** Where the initial JS comes from: each library (by npm package) and the console's own code, in gzip bytes. */
export interface InitialJsOrigins {
  libraries: { name: string; gzipBytes: number }[];
  ownGzipBytes: number;
  /** The console's largest modules in it, by gzip bytes. */
  largestOwn: { file: string; gzipBytes: number }[];
  /** How many of the console's modules it holds. */
  ownModules: number;
}

/** The npm package a source path belongs to (`@scope/name` or `name`), or null for the console's own code. */
function packageOf(source: string): string | null {
  const at = source.lastIndexOf('node_modules/');
  if (at === -1) return null;
  const [first = '', second = ''] = source.slice(at + 'node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

/**
 * The initial scripts of a build made with source maps (`sourcemapDir`: the same build as dist/ with
 * `--sourcemap`), each script's gzip size shared out among its sources by the characters each wrote.
 * Gzip compresses some code better than other, so a share is close, not exact; the sum is the whole.
 */
const BUNDLER_RUNTIME = 'node_modules/rolldown/runtime';

export async function initialJsOrigins(sourcemapDir: string): Promise<InitialJsOrigins> {
  const bySource = new Map<string, number>();
  for (const script of await initialScripts(sourcemapDir)) {
    const path = join(sourcemapDir, script.file.replace(/^\//, ''));
    // The bundler's runtime, alone in a script (vite.config.ts, the first load's chunks), comes without a map.
    const [code, map] = await Promise.all([readFile(path, 'utf8'), readFile(`${path}.map`, 'utf8').catch(() => null)]);
    if (map === null) {
      bySource.set(BUNDLER_RUNTIME, (bySource.get(BUNDLER_RUNTIME) ?? 0) + script.gzipBytes);
      continue;
    }
    const lines = code.split('\n');
    const chars = new Map<string, number>();
    let last: { source: string; line: number; column: number } | undefined;
    const close = (line: number, column: number) => {
      if (!last) return;
      const end = line === last.line ? column : (lines[last.line - 1]?.length ?? last.column);
      chars.set(last.source, (chars.get(last.source) ?? 0) + Math.max(0, end - last.column));
    };
    new SourceMapConsumer(JSON.parse(map) as RawSourceMap).eachMapping(
      (mapping) => {
        close(mapping.generatedLine, mapping.generatedColumn);
        last = mapping.source ? { source: mapping.source, line: mapping.generatedLine, column: mapping.generatedColumn } : undefined;
      },
      undefined,
      SourceMapConsumer.GENERATED_ORDER,
    );
    close(Number.MAX_SAFE_INTEGER, 0);
    const written = [...chars.values()].reduce((sum, n) => sum + n, 0);
    for (const [source, n] of chars) {
      // As a path from the repository (the map's sources are relative to the script's folder).
      const file = relative(process.cwd(), resolve(dirname(path), source));
      bySource.set(file, (bySource.get(file) ?? 0) + (script.gzipBytes * n) / written);
    }
  }
  const libraries = new Map<string, number>();
  const own: { file: string; gzipBytes: number }[] = [];
  for (const [source, gzipBytes] of bySource) {
    const name = packageOf(source);
    if (name) libraries.set(name, (libraries.get(name) ?? 0) + gzipBytes);
    else own.push({ file: source, gzipBytes });
  }
  own.sort((a, b) => b.gzipBytes - a.gzipBytes);
  return {
    libraries: [...libraries].map(([name, gzipBytes]) => ({ name, gzipBytes })).sort((a, b) => b.gzipBytes - a.gzipBytes),
    ownGzipBytes: own.reduce((sum, module) => sum + module.gzipBytes, 0),
    largestOwn: own.slice(0, 5),
    ownModules: own.length,
  };
}
