// The machine's limit for the proxied read: a bare node:http proxy on as many processes as the console's
// server (node:cluster), each forwarding the request to the same API stub over a keep-alive agent and piping
// the answer back. No session, no checks, no headers of its own: what any Node proxy on this machine pays for
// the extra hop. Run as `node --import tsx bench/bare-proxy.ts <upstream origin> <workers>`; prints `port <n>`.
import cluster from 'node:cluster';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const [upstream, workers = '1'] = process.argv.slice(2);
if (!upstream) throw new Error('usage: bare-proxy.ts <upstream origin> <workers>');
const target = new URL(upstream);

if (cluster.isPrimary) {
  // As the console's server does (server/process/run.ts): each worker accepts its own connections.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  const server = http.createServer();
  // Port 0 in a cluster gives each worker its own port: pick one here, then hand it to the workers.
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    server.close(() => {
      let listening = 0;
      for (let i = 0; i < Number(workers); i++) {
        cluster.fork({ BARE_PROXY_PORT: String(port) }).on('message', () => {
          if (++listening === Number(workers)) process.stdout.write(`port ${port}\n`);
        });
      }
    });
  });
} else {
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const outgoing = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { accept: req.headers.accept ?? '*/*' }, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    outgoing.on('error', () => res.destroy());
    outgoing.end();
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.env.BARE_PROXY_PORT), '127.0.0.1', () => process.send?.('listening'));
}
