// The wire layer's transport on the server (src/api/request.ts takes one per call): the session's key
// added here, and the call answered by the API backend in process (simulator or proxy), with no HTTP
// hop. Server rendering fetches a screen's first data through it, one transport per request.
import type { Transport } from '../../src/api/request';
import type { ApiFetch } from '../http/node-bridge';
import { withRequestId } from '../log/request-context';
import { authorizationOf } from './api-reader';

export function serverTransport(fetchApi: ApiFetch, apiKey: string): Transport {
  return async (path, init) => {
    // The page's request id: the reads a render makes are that request's.
    const headers = withRequestId(new Headers(init.headers));
    headers.set('authorization', authorizationOf(apiKey));
    const body = typeof init.body === 'string' ? new Uint8Array(Buffer.from(init.body, 'utf8')) : undefined;
    const response = await fetchApi({ method: init.method ?? 'GET', target: path, headers, body, signal: init.signal ?? undefined });
    // A dropped connection (an injected fault) is what fetch would throw for.
    if (response.type === 'error') throw new TypeError('The API closed the connection without answering.');
    return response;
  };
}
