// `npm start`'s entry, compiled to dist/server/main.js: React's production build on the server, as in the
// browser, unless NODE_ENV says otherwise. Set before anything loads React (the server's own modules do).
import { fileURLToPath } from 'node:url';

process.env.NODE_ENV ??= 'production';
const { serveBuilt } = await import('./serve-built');
await serveBuilt(fileURLToPath(new URL('../client/', import.meta.url)));
