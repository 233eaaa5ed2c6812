// The console over the built client and the embedded simulator, in one process, its routes dispatched by the
// console's own table (`table`) or by the same declarations mounted in Fastify 5 (`fastify`, bench/router-fastify.ts):
// `node --import tsx bench/router-server.ts <table|fastify> <dist/client/>` prints `port <n>` once listening.
import { readFile } from 'node:fs/promises';
import { createStaticAssets } from '../server/http/static-assets';
import { inlineStylesheets } from '../server/pages/inline-css';
import { createRenderMemo } from '../server/pages/render-memo';
import { createPageRenderer, parseManifest, screenHeadTags } from '../server/pages/server-render';
import { startServer } from '../server/process/compose';
import { mountInFastify } from './router-fastify';

const [mount = 'table', clientDir = 'dist/client/'] = process.argv.slice(2);
const template = await readFile(`${clientDir}index.html`, 'utf8');
const manifest = parseManifest(JSON.parse(await readFile(`${clientDir}.vite/manifest.json`, 'utf8')));
const entry = await import('../src/entry-server');
await entry.loadScreens();
const render = createPageRenderer({
  entry: () => Promise.resolve(entry),
  headTags: screenHeadTags(manifest, template, entry.screenSources),
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
if (mount === 'fastify') await mountInFastify(running.server, running.routing);
process.stdout.write(`port ${new URL(running.url).port}\n`);
process.on('SIGTERM', () => {
  void running.stop().then(() => process.exit(0));
});
