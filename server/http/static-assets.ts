// The built client (dist/client): hashed files under /assets/ are cached for a year and never
// revalidated (a new build has new names); everything else is revalidated. Files precompressed at build
// time (`.br`, `.gz`, scripts/precompress.ts) are picked by Accept-Encoding. index.html is not served
// from here: it is the template of every page (pages.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import sirv from 'sirv';

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const ASSETS_PREFIX = '/assets/';

export type AssetHandler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

export function createStaticAssets(dir: string): AssetHandler {
  const serve = sirv(dir, {
    brotli: true,
    gzip: true,
    etag: true,
    extensions: [],
    dotfiles: false,
    setHeaders(res, pathname) {
      res.setHeader('Cache-Control', pathname.startsWith(ASSETS_PREFIX) ? IMMUTABLE : 'no-cache');
    },
  });
  return (req, res, next) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/index.html' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      next();
      return;
    }
    serve(req, res, next);
  };
}
