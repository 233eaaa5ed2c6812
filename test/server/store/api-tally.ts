// An HTTP relay in front of the simulator, one per instance, that notes each of the instance's collector reads as
// the simulator receives it (a GET with no X-Request-ID: the server's own reads outside any request; a page's
// requests carry their request's id): which instance read which path, and when.
import http from 'node:http';

export interface Read {
  instance: string;
  path: string;
  /** performance.now() when the relay received it. */
  at: number;
}

export interface ApiTally {
  /** API_URL for the instance. */
  apiUrl: string;
  close: () => Promise<void>;
}

export async function startApiTally(apiUrl: string, instance: string, reads: Read[]): Promise<ApiTally> {
  const target = new URL(apiUrl);
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.headers['x-request-id'] === undefined) reads.push({ instance, path: req.url ?? '', at: performance.now() });
    const forwarded = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    apiUrl: `http://127.0.0.1:${port}${target.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
