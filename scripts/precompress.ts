import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin, ResolvedConfig } from 'vite';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

// Text files worth compressing; index.html is left out: it is the server's per-request template.
const COMPRESSIBLE = /\.(?:js|mjs|css|svg|json|txt|map|webmanifest)$/;

async function* files(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

/**
 * Writes `.br` (brotli, best quality) and `.gz` (gzip -9) beside every compressible file of the client
 * build, once, at build time, so the server (server/http/static-assets.ts) sends them without compressing
 * per request. A compressed copy that is not smaller is not written.
 */
export function precompress(): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'ops-console:precompress',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    async closeBundle() {
      if (config.build.ssr) return;
      const outDir = resolve(config.root, config.build.outDir);
      const work: Promise<void>[] = [];
      for await (const path of files(outDir)) {
        if (!COMPRESSIBLE.test(path)) continue;
        work.push(
          (async () => {
            const source = await readFile(path);
            const [br, gzipped] = await Promise.all([
              brotli(source, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: source.length } }),
              gz(source, { level: 9 }),
            ]);
            if (br.length < source.length) await writeFile(`${path}.br`, br);
            if (gzipped.length < source.length) await writeFile(`${path}.gz`, gzipped);
          })(),
        );
      }
      await Promise.all(work);
    },
  };
}
