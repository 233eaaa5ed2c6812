// Pages go out compressed (brotli or gzip, as the request's Accept-Encoding allows) without losing the
// streaming: each part pages.ts writes (the head at once, the body when its data is in) is flushed through
// the compressor and written before the next, so the browser gets the head while the server renders.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync, type BrotliCompress, type Gzip } from 'node:zlib';

export type Encoding = 'br' | 'gzip';

// Fast settings: a page is compressed on every request (gzip 6 cost 5 ms a rendered page here), so CPU matters more than the last few per cent.
const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 3;

/** The encoding to use for a request: brotli, else gzip, when Accept-Encoding allows it (q=0 refuses); null for none. */
export function negotiateEncoding(acceptEncoding: string | string[] | undefined): Encoding | null {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : (acceptEncoding ?? '');
  const accepted = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (name === '') continue;
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const allows = (name: Encoding) => {
    const q = accepted.get(name) ?? accepted.get('*');
    return q !== undefined && q > 0;
  };
  if (allows('br')) return 'br';
  if (allows('gzip')) return 'gzip';
  return null;
}

/**
 * Where a page writes: `write` resolves once the part is on its way to the socket (not held back by the
 * compressor), or once the connection has closed: it never waits on a person who left.
 */
export interface PageBody {
  write: (text: string) => Promise<void>;
  end: (text?: string) => void;
}

function setEncodingHeaders(res: ServerResponse, encoding: Encoding | null): void {
  // Caches (and the browser's) must keep a copy per encoding.
  res.setHeader('Vary', 'Accept-Encoding');
  if (encoding) res.setHeader('Content-Encoding', encoding);
}

/** A streamed body, compressed part by part when the request accepts it; call before anything is written. */
export function pageBody(req: IncomingMessage, res: ServerResponse): PageBody {
  const encoding = negotiateEncoding(req.headers['accept-encoding']);
  setEncodingHeaders(res, encoding);
  // Node drops the callback of a write to a connection it has torn down but not yet reported closed (a
  // person who left under load): waiting on the callback alone held the page, and its render slot, forever.
  const leftOrClosed = (send: (left: () => void) => void) =>
    new Promise<void>((resolve) => {
      const settle = () => {
        res.off('close', settle);
        resolve();
      };
      res.once('close', settle);
      send(settle);
    });
  if (!encoding) {
    return {
      write: (text) => leftOrClosed((left) => res.write(text, () => left())),
      end: (text) => void res.end(text),
    };
  }
  const zip: BrotliCompress | Gzip =
    encoding === 'br' ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }) : createGzip({ level: GZIP_LEVEL });
  const flushKind = encoding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH;
  zip.on('data', (chunk: Buffer) => res.write(chunk));
  zip.on('end', () => res.end());
  zip.on('error', () => res.destroy());
  res.once('close', () => zip.destroy());
  return {
    write: (text) =>
      leftOrClosed((left) => {
        zip.write(text);
        // The flush hands the compressed part to `data` above; the response's own write callback then says it left.
        zip.flush(flushKind, () => res.write('', () => left()));
      }),
    end: (text) => {
      if (text !== undefined) zip.end(text);
      else zip.end();
    },
  };
}

/** A whole page at once: compressed when the request accepts it, with its Content-Length. */
export function sendPage(req: IncomingMessage, res: ServerResponse, html: string): void {
  const encoding = negotiateEncoding(req.headers['accept-encoding']);
  setEncodingHeaders(res, encoding);
  const body =
    encoding === 'br'
      ? brotliCompressSync(html, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } })
      : encoding === 'gzip'
        ? gzipSync(html, { level: GZIP_LEVEL })
        : Buffer.from(html);
  res.setHeader('Content-Length', body.length);
  res.end(req.method === 'HEAD' ? undefined : body);
}
