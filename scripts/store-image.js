// `npm run build`'s last step: the image of a fresh embedded store, dist/server/store-image-<PGlite version>.tar.gz.
// PGlite's initdb takes 3–5 CPU-seconds; a fresh DATA_DIR's store unpacks this image instead, in about one
// (server/store/pglite-worker.ts; docs/architecture.md, "The store"). Made here once, by the PGlite the server runs
// with; a server finds no image for another version, and runs initdb.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { PGlite } from '@electric-sql/pglite';

const dist = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
const { version } = JSON.parse(await readFile(path.join(dist, '..', 'package.json'), 'utf8'));
// The name server/store/pglite-db.ts looks for (storeImageName).
const image = path.join('dist', 'server', `store-image-${version}.tar.gz`);

const folder = await mkdtemp(path.join(tmpdir(), 'ops-console-store-image-'));
try {
  const db = await PGlite.create(folder);
  const tar = await db.dumpDataDir('gzip');
  await db.close();
  await writeFile(image, Buffer.from(await tar.arrayBuffer()));
  console.log(`${image}: a fresh store's image (${(tar.size / 1024 / 1024).toFixed(1)} MiB)`);
} finally {
  await rm(folder, { recursive: true, force: true });
}
