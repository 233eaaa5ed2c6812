import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import * as z from 'zod/mini';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/api/api-error';
import { keepHistory, KEEP_TIMEOUT_MS } from '../../src/api/archive';
import { request, REQUEST_TIMEOUT_MS, type RequestOptions, type Transport } from '../../src/api/request';
import { mayOfferRetry, maySendAgain } from '../../src/api/retry-policy';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const Thing = z.object({ name: z.string() });

/** Stands for the console's server: same-origin paths reach it at this test origin. */
const toServer: Transport = (path, init) => fetch(new URL(path, 'http://console.test'), init);
const get = (path: string, options: RequestOptions = {}) => request(path, Thing, { transport: toServer, ...options });

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}

describe('request()', () => {
  it('sends no key of its own (the server adds it), goes through the transport it is given, and parses the body', async () => {
    let seen: Request | undefined;
    server.use(
      http.get('*/api/v2/things', ({ request: req }) => {
        seen = req;
        return HttpResponse.json({ name: 'a', extra: 'dropped' });
      }),
    );
    const paths: string[] = [];
    const transport: Transport = (path, init) => {
      paths.push(path);
      return toServer(path, init);
    };
    await expect(request('/things', Thing, { transport, query: { limit: 5, cursor: '2026-11-22T12:00:00.123456Z' } })).resolves.toEqual({ name: 'a' });
    expect(paths).toEqual(['/api/v2/things?limit=5&cursor=2026-11-22T12%3A00%3A00.123456Z']);
    expect(seen?.headers.get('authorization')).toBeNull();
    expect(seen?.headers.get('accept')).toBe('application/json');
    // The cursor goes back verbatim (URL-encoded), never reformatted.
    expect(new URL(seen?.url ?? '').searchParams.get('cursor')).toBe('2026-11-22T12:00:00.123456Z');
  });

  it('turns an error body into an ApiError with the message, request id and Retry-After', async () => {
    server.use(
      http.get('*/api/v2/things', () =>
        HttpResponse.json(
          { code: '', message: 'rate limit exceeded', request_id: 'body-id' },
          { status: 429, headers: { 'Retry-After': '7', 'x-neon-ret-request-id': 'req-123' } },
        ),
      ),
    );
    const error = await failure(get('/things'));
    expect(error).toMatchObject({ kind: 'http', status: 429, message: 'rate limit exceeded', requestId: 'req-123', retryAfterMs: 7_000 });
    expect(mayOfferRetry(error)).toBe(true);
  });

  it('explains a status in plain words when the error body is not JSON', async () => {
    server.use(http.get('*/api/v2/things', () => new HttpResponse('<html>bad gateway</html>', { status: 503 })));
    const error = await failure(get('/things'));
    expect(error.message).toBe('The API is temporarily unavailable.');
  });

  it('reports a body that is not JSON, or has the wrong shape, as malformed with the request id', async () => {
    server.use(
      http.get('*/api/v2/things', () => new HttpResponse('{"name": ', { headers: { 'x-neon-ret-request-id': 'r1' } }), { once: true }),
      http.get('*/api/v2/things', () => HttpResponse.json({ name: 42 }, { headers: { 'x-neon-ret-request-id': 'r2' } }), { once: true }),
    );
    await expect(failure(get('/things'))).resolves.toMatchObject({ kind: 'malformed', requestId: 'r1' });
    const shape = await failure(get('/things'));
    expect(shape).toMatchObject({ kind: 'malformed', requestId: 'r2' });
    expect(shape.message).toContain('name');
  });

  it('reports a dead network as a network error, retried like one', async () => {
    server.use(http.get('*/api/v2/things', () => HttpResponse.error()));
    const error = await failure(get('/things'));
    expect(error.kind).toBe('network');
    expect(mayOfferRetry(error)).toBe(true);
  });
});

describe('request() against an API that never answers', () => {
  it('gives up after REQUEST_TIMEOUT_MS with a network error that says so (and is retried like one)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      server.use(http.get('*/api/v2/things', () => delay('infinite')));
      const pending = failure(get('/things'));
      await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS);
      const error = await pending;
      expect(error.kind).toBe('network');
      expect(error.message).toBe('The API did not answer within 30 s.');
      expect(maySendAgain(error)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('waits as long as the slow request needs (keeping history may start the archive’s store), and names the console’s server when it is that one', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let answered = false;
      server.use(http.post('*/archive/sources', () => delay('infinite')));
      const pending = keepHistory().then(
        () => (answered = true),
        (error: unknown) => error,
      );
      // Past a read's 30 s, a keep is still waited for.
      await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS + 1_000);
      expect(answered).toBe(false);
      await vi.advanceTimersByTimeAsync(KEEP_TIMEOUT_MS - REQUEST_TIMEOUT_MS);
      const error = await pending;
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).message).toBe('The console’s server did not answer within 120 s.');
    } finally {
      vi.useRealTimers();
    }
  });

  it('still lets the caller abort: the abort is passed on, not turned into a timeout', async () => {
    server.use(http.get('*/api/v2/things', () => delay('infinite')));
    const controller = new AbortController();
    const pending = get('/things', { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
