// `npm start`'s entry, compiled to dist/server/main.js: React's production build on the server, as in the
// browser, unless NODE_ENV says otherwise. Set before anything loads React (the server's own modules do).
// One process, or several instances with DATABASE_URL: process/run.ts.
import { fileURLToPath } from 'node:url';
import { NODE_ENV_DEFAULTED } from './config';

// Set here for React only: it does not make a deployment of the operator's (config.ts reads who set it).
if (process.env.NODE_ENV === undefined) {
  process.env.NODE_ENV = 'production';
  process.env[NODE_ENV_DEFAULTED] = '1';
}
const { runServer } = await import('./process/run');
await runServer(fileURLToPath(new URL('../client/', import.meta.url)));
