// `npm start`'s serving parts: the production server over the built client (dist/client), the built
// screens rendered on the server, through the one composition root (compose.ts).
import { readFile } from 'node:fs/promises';
import { createStaticAssets } from '../http/static-assets';
import { inlineStylesheets } from '../pages/inline-css';
import { createRenderMemo } from '../pages/render-memo';
import { createPageRenderer, parseManifest, screenHeadTags } from '../pages/server-render';
import { processLog } from '../log/logger';
import { startServer, type StartOptions } from './compose';
import { exitOnSignals } from './signals';

/** One of several instances, or why fewer processes serve than asked for. */
export type BuiltServerOptions = Pick<StartOptions, 'instance' | 'processNote'>;

export async function serveBuilt(clientDir: string, options: BuiltServerOptions = {}): Promise<void> {
  try {
    const template = await readFile(`${clientDir}index.html`, 'utf8');
    const manifest = parseManifest(JSON.parse(await readFile(`${clientDir}.vite/manifest.json`, 'utf8')));
    const entry = await import('../../src/entry-server');
    await entry.loadScreens();
    // The screens' tags leave out what the built index.html loads, inlined or not; a render is reused
    // for a moment when its inputs come back the same (pages/render-memo.ts).
    const render = createPageRenderer({
      entry: () => Promise.resolve(entry),
      headTags: screenHeadTags(manifest, template, entry.screenSources),
      memo: createRenderMemo(),
    });
    const page = await inlineStylesheets(template, clientDir);
    const running = await startServer({
      mode: 'production',
      ...options,
      serving: () =>
        Promise.resolve({ template: { html: () => Promise.resolve(page.html) }, styleHashes: page.styleHashes, assets: createStaticAssets(clientDir), render }),
    });
    exitOnSignals(running, { instance: options.instance ?? false });
  } catch (error) {
    processLog(`Could not start: ${error instanceof Error ? error.message : String(error)}`, { event: 'process.start_failed', level: 'fatal' });
    process.exit(1);
  }
}
