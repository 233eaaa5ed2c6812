// The wire layer's transport on the server (src/api/request.ts takes one per call): the session's key
// added here, and the call answered by the API backend in process (simulator or proxy), with no HTTP
// hop; a path of the console's own (`/archive/insights`) by its route in process, for the same session.
// Server rendering fetches a screen's first data through it, one transport per request.
import type { Transport } from '../../src/api/request';
import type { ApiFetch } from '../http/node-bridge';
import { isApiPath } from '../http/paths';
import { withRequestId } from '../log/request-context';
import { authorizationOf } from './api-reader';

export function serverTransport(fetchApi: ApiFetch, apiKey: string, fetchOwn?: ApiFetch): Transport {
  return async (path, init) => {
    const body = typeof init.body === 'string' ? new Uint8Array(Buffer.from(init.body, 'utf8')) : undefined;
    // The page's request id: the reads a render makes are that request's.
    if (!isApiPath(path)) {
      if (!fetchOwn) throw new TypeError(`The server renders nothing that reads ${path.split('?')[0] ?? ''}.`);
      return fetchOwn({
        method: init.method ?? 'GET',
        target: path,
        headers: withRequestId(new Headers(init.headers)),
        body,
        signal: init.signal ?? undefined,
      });
    }
    const headers = withRequestId(new Headers(init.headers));
    headers.set('authorization', authorizationOf(apiKey));
    const response = await fetchApi({ method: init.method ?? 'GET', target: path, headers, body, signal: init.signal ?? undefined });
    // A dropped connection (an injected fault) is what fetch would throw for.
    if (response.type === 'error') throw new TypeError('The API closed the connection without answering.');
    return response;
  };
}
