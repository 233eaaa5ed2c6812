// `npm start`: the production server over the built client (dist/client), started by main.ts once the
// environment is set.
import { readFile } from 'node:fs/promises';
import { inlineStylesheets } from '../pages/inline-css';
import { createRenderMemo } from '../pages/render-memo';
import { createPageRenderer, parseManifest, screenHeadTags } from '../pages/server-render';
import { exitOnSignals, startServer, stderrLog, type RunningServer, type StartOptions } from './compose';
import { createStaticAssets } from '../http/static-assets';

/** A worker of several (server/cluster.ts): its shared parts, and its own way to stop instead of exitOnSignals. */
export type BuiltServerOptions = Pick<StartOptions, 'backend' | 'shareRevocations' | 'archive' | 'print'> & { started?: (running: RunningServer) => void };

export async function serveBuilt(clientDir: string, options: BuiltServerOptions = {}): Promise<void> {
  const { started = exitOnSignals, ...shared } = options;
  try {
    const template = await readFile(`${clientDir}index.html`, 'utf8');
    const manifest = parseManifest(JSON.parse(await readFile(`${clientDir}.vite/manifest.json`, 'utf8')));
    const entry = await import('../../src/entry-server');
    await entry.loadScreens();
    // The screens' tags leave out what the built index.html loads, inlined or not; a render is reused
    // for a moment when its inputs come back the same (server/render-memo.ts).
    const render = createPageRenderer({ entry: () => Promise.resolve(entry), headTags: screenHeadTags(manifest, template, entry.screenSources), memo: createRenderMemo() });
    const page = await inlineStylesheets(template, clientDir);
    const running = await startServer({
      mode: 'production',
      ...shared,
      serving: () => Promise.resolve({ template: { html: () => Promise.resolve(page.html) }, styleHashes: page.styleHashes, assets: createStaticAssets(clientDir), render }),
    });
    started(running);
  } catch (error) {
    stderrLog(`Could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
