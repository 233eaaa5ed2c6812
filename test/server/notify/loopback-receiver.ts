import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Reply = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/** A webhook receiver on 127.0.0.1 that records what it gets and answers as told. */
export async function startReceiver(reply: (request: Received) => Reply = () => ({ status: 200, body: 'ok' })) {
  const received: Received[] = [];
  const waiting: Array<() => void> = [];
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
