// The console over the built client and the embedded simulator, in one process, its routes dispatched by Fastify 5
// as the server routes (`fastify`, server/routes/router.ts) or by a bare find-my-way table with no Fastify around it
// (`table`, bench/router-table.ts): `node --import tsx bench/router-server.ts <table|fastify> <dist/client/>` prints
// `port <n>` once listening.
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createStaticAssets } from '../server/http/static-assets';
import { inlineStylesheets } from '../server/pages/inline-css';
import { createRenderMemo } from '../server/pages/render-memo';
import { asEntryServer, createPageRenderer, parseManifest, screenHeadTags } from '../server/pages/server-render';
import { startServer } from '../server/process/compose';
import { mountBareTable } from './router-table';

const [mount = 'fastify', clientDir = 'dist/client/'] = process.argv.slice(2);
const template = await readFile(`${clientDir}index.html`, 'utf8');
const manifest = parseManifest(JSON.parse(await readFile(`${clientDir}.vite/manifest.json`, 'utf8')));
// The screens as the build made them (dist/server): their CSS imports are the client build's, which tsx cannot load.
const chunks = join(clientDir, '..', 'server', 'assets');
const chunk = (await readdir(chunks)).find((name) => readFileSync(join(chunks, name), 'utf8').includes('export { loadScreens'));
if (!chunk) throw new Error('dist/server has no entry-server chunk: run npm run build first');
const built = (await import(pathToFileURL(join(chunks, chunk)).href)) as Record<string, unknown>;
const { loadScreens, screenSources } = built as { loadScreens: () => Promise<void>; screenSources: Parameters<typeof screenHeadTags>[2] };
await loadScreens();
const entry = asEntryServer(built);
const render = createPageRenderer({
  entry: () => Promise.resolve(entry),
  headTags: screenHeadTags(manifest, template, screenSources),
  memo: createRenderMemo(),
});
const page = await inlineStylesheets(template, clientDir);
const running = await startServer({
  mode: 'production',
  print: () => undefined,
  log: () => undefined,
  serving: () =>
    Promise.resolve({ template: { html: () => Promise.resolve(page.html) }, styleHashes: page.styleHashes, assets: createStaticAssets(clientDir), render }),
});
if (mount === 'table') mountBareTable(running.server, running.routing);
process.stdout.write(`port ${new URL(running.url).port}\n`);
process.on('SIGTERM', () => {
  void running.stop().then(() => process.exit(0));
});
