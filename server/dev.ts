// `npm run dev`: the same server as `npm start`, with Vite in middleware mode for the client (HMR over
// this server's own socket) instead of the built files, and server rendering through Vite's own module
// loading (ssrLoadModule), so an edited screen renders anew on the next page.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createServer as createViteServer } from 'vite';
import { asEntryServer, createPageRenderer } from './pages/server-render';
import { processLog } from './log/logger';
import { startServer } from './process/compose';
import { exitOnSignals } from './process/signals';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** An address bar navigation: the page, not a module (Vite's module paths are files first: server/pages/page-routes.ts). */
function isNavigation(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').includes('text/html');
}

try {
  const running = await startServer({
    mode: 'dev',
    serving: async (server, config) => {
      // Vite checks Host on its own files and HMR socket: the names the console answers (server/http/host-check.ts) are its too.
      const allowedHosts = [...config.allowedHosts, ...(config.publicUrl ? [config.publicUrl.hostname] : [])];
      const vite = await createViteServer({ root: ROOT, appType: 'custom', server: { middlewareMode: true, hmr: { server }, allowedHosts } });
      return {
        template: { html: async (url) => vite.transformIndexHtml(url, await readFile(`${ROOT}index.html`, 'utf8')) },
        assets: (req, res, next) => vite.middlewares(req, res, next),
        pagesFirst: isNavigation,
        render: createPageRenderer({ entry: async () => asEntryServer(await vite.ssrLoadModule('/src/entry-server.tsx')) }),
        close: () => vite.close(),
      };
    },
  });
  exitOnSignals(running);
} catch (error) {
  processLog(`Could not start: ${error instanceof Error ? error.message : String(error)}`, { event: 'process.start_failed', level: 'fatal' });
  process.exit(1);
}
