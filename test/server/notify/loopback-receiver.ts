import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** An answer; 'hang': never one; 'hold': one once the test calls release(). */
export type Reply = { status: number; body?: string; headers?: Record<string, string> } | 'hang' | 'hold';

/** A webhook receiver on 127.0.0.1 that records what it gets and answers as told. */
export async function startReceiver(reply: (request: Received) => Reply = () => ({ status: 200, body: 'ok' })) {
  const received: Received[] = [];
  const waiting: Array<() => void> = [];
  const held: http.ServerResponse[] = [];
  let answer = reply;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      for (const wake of waiting.splice(0)) wake();
      const out = answer(request);
      if (out === 'hang') return;
      if (out === 'hold') {
        held.push(res);
        return;
      }
      res.writeHead(out.status, { 'content-type': 'text/plain', ...out.headers });
      res.end(out.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answerWith(next: (request: Received) => Reply) {
      answer = next;
    },
    /** Requests held for release(). */
    held,
    /** Answers every held request with 200. */
    release() {
      for (const res of held.splice(0)) res.writeHead(200).end('ok');
    },
    /** Resolves once `count` requests have arrived. */
    async until(count: number) {
      while (received.length < count) await new Promise<void>((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
