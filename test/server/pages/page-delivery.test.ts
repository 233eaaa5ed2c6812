import http from 'node:http';
import { brotliDecompressSync, constants, createBrotliDecompress, createGunzip, gunzipSync, type BrotliDecompress, type Gunzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScreenRender } from '../../../src/entry-server';
import { negotiateEncoding } from '../../../server/http/compression';
import type { PageRenderer } from '../../../server/pages/page';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';

// How pages leave the server: compressed as the browser allows without losing the streaming (the head
// arrives, decodable, while the screen is still rendering), and past the render cap as the shell at once.

const KEY = 'page-delivery-key-000000000000000';
const SCREEN_TAGS = '<link rel="modulepreload" crossorigin href="/assets/screen-test.js">';

/** A renderer whose renders finish when the test says so: each render waits on its own gate. */
function gatedRenderer() {
  const pending: ((render: ScreenRender) => void)[] = [];
  const render: PageRenderer = ({ session }) =>
    Promise.resolve(session ? { headTags: SCREEN_TAGS, render: () => new Promise<ScreenRender>((resolve) => pending.push(resolve)) } : null);
  const finishAll = () => {
    for (const resolve of pending.splice(0))
      resolve({ kind: 'rendered', html: '<main>rendered</main>', queries: { queries: [], mutations: [] }, renderedAt: 1 });
  };
  return { render, pending, finishAll };
}

async function signIn(server: TestServer): Promise<string> {
  const response = await server.request({
    method: 'POST',
    path: '/session',
    headers: { 'content-type': 'application/json', accept: 'application/json', origin: `http://127.0.0.1:${server.port}` },
    body: JSON.stringify({ key: KEY }),
  });
  expect(response.status, response.body).toBe(200);
  return response.headers['set-cookie']![0]!.split(';')[0]!;
}

/** A page request whose decoded text can be read as it arrives. */
function openPage(port: number, path: string, headers: Record<string, string>) {
  let decoded = '';
  let resolveHeaders: (res: http.IncomingMessage) => void = () => undefined;
  const headersIn = new Promise<http.IncomingMessage>((resolve) => (resolveHeaders = resolve));
  const ended = new Promise<string>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers }, (res) => {
      resolveHeaders(res);
      const encoding = res.headers['content-encoding'];
      const decoder: BrotliDecompress | Gunzip | http.IncomingMessage =
        encoding === 'br' ? res.pipe(createBrotliDecompress()) : encoding === 'gzip' ? res.pipe(createGunzip({ finishFlush: constants.Z_SYNC_FLUSH })) : res;
      decoder.on('data', (chunk: Buffer) => (decoded += chunk.toString('utf8')));
      decoder.on('end', () => resolve(decoded));
      decoder.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  return { headersIn, ended, decoded: () => decoded };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('choosing an encoding from Accept-Encoding', () => {
  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip, deflate', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['*', 'br'],
    ['identity', null],
    ['gzip;q=0, br;q=0', null],
    ['', null],
  ])('%s → %s', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});

describe('delivering pages', () => {
  let server: TestServer;
  const gated = gatedRenderer();
  afterAll(() => removeTestClientDir());

  beforeAll(async () => {
    server = await startTestServer({ SIM_API_KEY: KEY }, { render: gated.render, renderDeadlineMs: 60_000, maxRenders: 1 });
  });
  afterAll(async () => {
    gated.finishAll();
    await server.stop();
  });

  it.each(['br', 'gzip'] as const)('compresses a whole page with %s when the browser accepts it, and says so', async (encoding) => {
    const response = await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: server.port, path: '/', headers: { accept: 'text/html', 'accept-encoding': encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });

    expect(response.headers['content-encoding']).toBe(encoding);
    expect(response.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(response.headers['content-length'])).toBe(response.body.length);
    const html = (encoding === 'br' ? brotliDecompressSync(response.body) : gunzipSync(response.body)).toString('utf8');
    expect(html).toContain('<div id="root">');
  });

  it('sends a page as it is to a client that accepts no compression', async () => {
    const response = await server.request({ path: '/', headers: { accept: 'text/html' } });

    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.body).toContain('<div id="root">');
  });

  it.each(['br', 'gzip'] as const)('streams a rendered page compressed with %s: the head decodes before the screen has rendered', async (encoding) => {
    const cookie = await signIn(server);

    const page = openPage(server.port, '/?p=1', { cookie, accept: 'text/html', 'accept-encoding': encoding });

    const res = await page.headersIn;
    expect(res.headers['content-encoding']).toBe(encoding);
    await until(() => page.decoded().includes('<div id="root">'));
    expect(page.decoded()).toContain('</head>');
    expect(gated.pending).toHaveLength(1);
    gated.finishAll();
    const html = await page.ended;
    expect(html).toContain('<div id="root"><main>rendered</main></div>');
    // Rendered: the screen's preloads are held until the entry runs (server/pages/).
    expect(html).toContain(`${SCREEN_TAGS}</template></body>`);
    expect(html.endsWith('</html>')).toBe(true);
  });

  it('sends the shell at once, never queued, to a page asked for while the render cap is taken', async () => {
    const cookie = await signIn(server);
    const first = openPage(server.port, '/?p=1', { cookie, accept: 'text/html' });
    await until(() => gated.pending.length === 1);

    const second = await server.request({ path: '/?p=2', headers: { cookie, accept: 'text/html' } });

    expect(second.status).toBe(200);
    expect(second.body).toContain('<div id="root"></div>');
    expect(second.body).not.toContain('"renderedAt"');
    expect(gated.pending).toHaveLength(1);
    gated.finishAll();
    expect(await first.ended).toContain('<main>rendered</main>');
    // The slot is free again: the next page is rendered.
    const third = openPage(server.port, '/?p=3', { cookie, accept: 'text/html' });
    await until(() => gated.pending.length === 1);
    gated.finishAll();
    expect(await third.ended).toContain('<main>rendered</main>');
  });
});
