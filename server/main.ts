// `npm start`'s entry, compiled to dist/server/main.js: React's production build on the server, as in the
// browser, unless NODE_ENV says otherwise. Set before anything loads React (the server's own modules do).
// One process, or several instances with DATABASE_URL: process/run.ts.
import { fileURLToPath } from 'node:url';

process.env.NODE_ENV ??= 'production';
const { runServer } = await import('./process/run');
await runServer(fileURLToPath(new URL('../client/', import.meta.url)));
