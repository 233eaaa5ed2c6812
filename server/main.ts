// `npm start`: the production server over the built client (dist/client), compiled to dist/server/main.js.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { exitOnSignals, startServer, stderrLog } from './start';
import { createStaticAssets } from './static-assets';

const CLIENT_DIR = fileURLToPath(new URL('../client/', import.meta.url));

try {
  const template = await readFile(`${CLIENT_DIR}index.html`, 'utf8');
  const running = await startServer({
    mode: 'production',
    serving: () => Promise.resolve({ template: { html: () => Promise.resolve(template) }, assets: createStaticAssets(CLIENT_DIR) }),
  });
  exitOnSignals(running);
} catch (error) {
  stderrLog(`Could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
