import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import zlib from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createForwardProxy, MAX_ANSWER_BYTES } from '../../../server/proxy/forward-proxy';
import { close, listen, rawRequest } from '../http-helpers';

// The proxy as an attacker's (or a broken) API would probe it: its deadline fires even after a garbage
// collection (on Node 20 a timeout signal inside AbortSignal.any was collected and never fired), an
// answer far larger than any real one is cut at the cap instead of being held in memory, and a small
// compressed answer is never inflated for a client that takes it compressed.

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

const MIB = 1024 * 1024;
const KEY = 'proxy-limits-test-key-0000000000';
const DEADLINE_MS = 300;
const ZEROS = Buffer.alloc(MIB);

let upstreamSent = 0;
const upstreamSaw: http.IncomingHttpHeaders[] = [];
let reply: (req: http.IncomingMessage, res: http.ServerResponse) => void;
const upstream = http.createServer((req, res) => {
  upstreamSaw.push(req.headers);
  reply(req, res);
});

/** Writes `total` bytes of `chunk` as fast as the reader takes them, counting what left; stops when the reader goes away. */
function stream(res: http.ServerResponse, total: number, chunk: Buffer = ZEROS): void {
  let left = total;
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= part.length;
      upstreamSent += part.length;
      if (!res.write(part)) {
        res.once('drain', pump);
        return;
      }
    }
    if (left === 0) res.end();
  };
  pump();
}

interface Received {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: number;
  /** False when the connection was cut before the answer's end. */
  complete: boolean;
  text: string;
}

/** A GET that counts the answer's bytes without keeping them (memory is measured while it runs). */
function receive(port: number, headers: Record<string, string> = {}): Promise<Received> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: '/api/v2/projects/p-1/operations', headers: { authorization: `Bearer ${KEY}`, ...headers } },
      (res) => {
        let bytes = 0;
        let text = '';
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (text.length < 4096) text += chunk.toString('latin1');
        });
        res.on('error', () => undefined);
        res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, complete: res.complete, text }));
      },
    );
    req.on('error', reject);
  });
}

/** The highest heap + array buffer use seen while `work` runs, above what was in use before it. */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
  collectGarbage();
  const used = () => {
    const memory = process.memoryUsage();
    return memory.heapUsed + memory.arrayBuffers;
  };
  const before = used();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, used())), 5);
  try {
    const result = await work();
    peak = Math.max(peak, used());
    return { result, growth: peak - before };
  } finally {
    clearInterval(timer);
  }
}

const logged: string[] = [];
let bomb: Buffer;
// One proxy with a short deadline (the deadline tests), one with the default 30 s (the size tests, which take a moment).
let hasty: http.Server;
let hastyPort: number;
let proxy: http.Server;
let port: number;

async function proxyServer(apiUrl: string, timeoutMs?: number): Promise<[http.Server, number]> {
  const handler = createForwardProxy({ apiUrl, ...(timeoutMs ? { timeoutMs } : {}), log: (line) => void logged.push(line) });
  const server = http.createServer((req, res) => void handler(req, res));
  return [server, await listen(server)];
}

beforeAll(async () => {
  const apiUrl = `http://127.0.0.1:${await listen(upstream)}/api/v2`;
  [hasty, hastyPort] = await proxyServer(apiUrl, DEADLINE_MS);
  [proxy, port] = await proxyServer(apiUrl);
  // 200 MiB of zeros, gzipped: about 200 KB on the wire.
  const gzip = zlib.createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => parts.push(chunk));
  const done = new Promise((resolve) => gzip.on('end', resolve));
  for (let i = 0; i < 200; i += 1) gzip.write(ZEROS);
  gzip.end();
  await done;
  bomb = Buffer.concat(parts);
});

afterAll(async () => {
  await Promise.all([close(hasty), close(proxy), close(upstream)]);
});

beforeEach(() => {
  upstreamSent = 0;
  upstreamSaw.length = 0;
  logged.length = 0;
});

describe('the proxy deadline', () => {
  it('answers 504 at the deadline even when a garbage collection runs while it waits', async () => {
    let upstreamClosed = false;
    // Past the deadline this API would answer 200: what the proxy did on Node 20 when its timer was collected.
    reply = (req, res) => {
      req.socket.once('close', () => (upstreamClosed = true));
      // wall-clock: the proxy's deadline is a real timer on a real socket; this API answers past it.
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"late":true}'), DEADLINE_MS * 10).unref();
    };
    const pending = rawRequest(hastyPort, { path: '/api/v2/projects', headers: { authorization: `Bearer ${KEY}` } });
    await expect.poll(() => upstreamSaw.length).toBe(1);
    for (let i = 0; i < 5; i += 1) {
      collectGarbage();
      await new Promise((resolve) => setImmediate(resolve));
    }

    const response = await pending;

    expect(response.status).toBe(504);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'CONSOLE_API_UNREACHABLE', message: expect.stringMatching(/did not answer within/) as string });
    expect(logged).toEqual([expect.stringMatching(/did not answer within 300 ms\. \(GET \/api\/v2\/projects\)$/)]);
    await expect.poll(() => upstreamClosed).toBe(true);
  });

  it('answers 504 when the status arrives in time but the body stalls', async () => {
    reply = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"projects":[');
    };

    const response = await rawRequest(hastyPort, { path: '/api/v2/projects', headers: { authorization: `Bearer ${KEY}` } });

    expect(response.status).toBe(504);
    expect(response.body).not.toContain('"projects"');
  });
});

describe('answers larger than the cap', () => {
  it('refuses a 300 MiB answer of declared length with a clear 502, reading almost none of it', async () => {
    reply = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(300 * MIB) });
      stream(res, 300 * MIB);
    };

    const { result, growth } = await peakGrowth(() => receive(port));

    expect(result.status).toBe(502);
    expect(JSON.parse(result.text)).toMatchObject({
      code: 'CONSOLE_API_UNREACHABLE',
      message:
        'The API at ' +
        `127.0.0.1:${new URL(`http://${upstreamSaw[0]!.host!}`).port}` +
        ' sent an answer larger than 16 MiB, which the console does not pass on.',
    });
    expect(upstreamSent).toBeLessThan(64 * MIB);
    expect(growth).toBeLessThan(64 * MIB);
  });

  it('streams a 300 MiB answer of unknown length only up to the cap, then cuts it, never holding it', async () => {
    reply = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      stream(res, 300 * MIB);
    };

    const { result, growth } = await peakGrowth(() => receive(port));

    expect(result.status).toBe(200);
    expect(result.complete).toBe(false);
    expect(result.bytes).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    expect(upstreamSent).toBeLessThan(MAX_ANSWER_BYTES + 32 * MIB);
    expect(growth).toBeLessThan(64 * MIB);
    expect(logged).toEqual([expect.stringMatching(/larger than 16 MiB/)]);
  }, 30_000);
});

describe('a client that leaves', () => {
  it('drops the exchange with the API when the client goes away mid-answer, and logs nothing against the API', async () => {
    let upstreamClosed = false;
    reply = (req, res) => {
      req.socket.once('close', () => (upstreamClosed = true));
      res.writeHead(200, { 'content-type': 'application/json' });
      stream(res, 300 * MIB);
    };

    await new Promise<void>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/api/v2/projects', headers: { authorization: `Bearer ${KEY}` } }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > MIB) req.destroy();
        });
        res.on('error', () => undefined);
        res.on('close', () => resolve());
      });
      req.on('error', () => undefined);
      req.on('close', () => resolve());
      setTimeout(() => reject(new Error('the answer never started')), 10_000).unref();
    });

    await expect.poll(() => upstreamClosed).toBe(true);
    expect(upstreamSent).toBeLessThan(MAX_ANSWER_BYTES);
    expect(logged).toEqual([]);
  });
});

describe('an API that breaks off', () => {
  it('answers a clear 502 when the API closes the connection partway through a short answer', async () => {
    reply = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10_000) });
      res.write('{"operations":[');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const result = await receive(port);
    expect(result.status).toBe(502);
    expect(JSON.parse(result.text)).toMatchObject({
      code: 'CONSOLE_API_UNREACHABLE',
      message: expect.stringMatching(/^The API at 127\.0\.0\.1:\d+ broke off its answer: aborted\.$/) as string,
    });
    expect(logged).toEqual([expect.stringMatching(/broke off its answer: aborted\. \(GET \/api\/v2\/projects\/p-1\/operations\)$/)]);
  });

  it('cuts the client off when the API breaks off an answer that is already on its way', async () => {
    reply = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(4 * MIB) });
      res.write(ZEROS, () => setTimeout(() => res.socket?.destroy(), 20));
    };
    const result = await receive(port);
    expect(result.status).toBe(200);
    expect(result.complete).toBe(false);
    expect(result.bytes).toBeGreaterThanOrEqual(64 * 1024);
    expect(result.bytes).toBeLessThan(4 * MIB);
    expect(logged).toEqual([expect.stringMatching(/broke off its answer/)]);
  });

  it('drops the exchange at once when the client leaves before the API has answered', async () => {
    let upstreamClosed = false;
    reply = (req) => req.socket.once('close', () => (upstreamClosed = true));
    const req = http.get({ host: '127.0.0.1', port, path: '/api/v2/projects', headers: { authorization: `Bearer ${KEY}` } });
    req.on('error', () => undefined);
    await expect.poll(() => upstreamSaw.length).toBe(1);
    req.destroy();
    // Long before the proxy's 30 s deadline.
    await expect.poll(() => upstreamClosed, { timeout: 2_000 }).toBe(true);
    expect(logged).toEqual([]);
  });
});

describe('compressed answers', () => {
  const gzipped = (body: Buffer) => (_req: http.IncomingMessage, res: http.ServerResponse) =>
    void res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(body.length) }).end(body);

  it('passes a gzip answer through as it is to a client that takes gzip: a 200 KB bomb stays 200 KB', async () => {
    reply = gzipped(bomb);

    const { result, growth } = await peakGrowth(() => receive(port, { 'accept-encoding': 'gzip, deflate, br, zstd' }));

    expect(upstreamSaw[0]!['accept-encoding']).toBe('gzip, deflate, br');
    expect(result).toMatchObject({ status: 200, bytes: bomb.length, complete: true });
    expect(result.headers['content-encoding']).toBe('gzip');
    expect(growth).toBeLessThan(64 * MIB);
  });

  it('decodes for a client that does not take the encoding, and cuts a bomb at the cap', async () => {
    reply = gzipped(bomb);

    const { result, growth } = await peakGrowth(() => receive(port));

    expect(upstreamSaw[0]!['accept-encoding']).toBe('identity');
    expect(result.headers['content-encoding']).toBeUndefined();
    expect(result.complete).toBe(false);
    expect(result.bytes).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    expect(growth).toBeLessThan(64 * MIB);
  }, 30_000);

  it('decodes an ordinary compressed answer whole for a client that takes none (the server’s own key check, curl)', async () => {
    const body = JSON.stringify({ projects: Array.from({ length: 2000 }, (_, i) => ({ id: `p-${i}`, name: `project ${i}` })) });
    reply = gzipped(zlib.gzipSync(body));

    const response = await rawRequest(port, { path: '/api/v2/projects', headers: { authorization: `Bearer ${KEY}`, 'accept-encoding': 'gzip;q=0, identity' } });

    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.body).toBe(body);
  });
});
