// People arriving while the server is busy: opens `count` connections at once to a page and times each one's
// connect and the first byte of its answer. Run beside the 200-connection overload (bench/load.ts), in a process
// of its own: `node --import tsx bench/arrivals.ts '<json options>'` prints one JSON line.
import net from 'node:net';
import * as z from 'zod/mini';

const Options = z.object({ port: z.number(), path: z.string(), cookie: z.string(), count: z.number() });
const { port, path, cookie, count } = Options.parse(JSON.parse(process.argv[2] ?? '{}'));
const TIMEOUT_MS = 30_000;

interface Arrival {
  connectMs: number;
  firstByteMs: number;
}

const started = performance.now();
const arrivals = await Promise.all(
  Array.from(
    { length: count },
    () =>
      new Promise<Arrival | null>((resolve) => {
        let connectMs = NaN;
        const socket = net.connect(port, '127.0.0.1', () => (connectMs = performance.now() - started));
        const give = (arrival: Arrival | null) => {
          socket.destroy();
          resolve(arrival);
        };
        socket.setTimeout(TIMEOUT_MS, () => give(null));
        socket.once('data', () => give({ connectMs, firstByteMs: performance.now() - started }));
        socket.once('error', () => give(null));
        socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${cookie}\r\nAccept: text/html\r\nConnection: close\r\n\r\n`);
      }),
  ),
);
const answered = arrivals.filter((arrival): arrival is Arrival => arrival !== null);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const at = (values: number[], share: number) => values[Math.min(values.length - 1, Math.floor(values.length * share))] ?? NaN;
const connects = sorted(answered.map((arrival) => arrival.connectMs));
const firstBytes = sorted(answered.map((arrival) => arrival.firstByteMs));
process.stdout.write(
  `${JSON.stringify({ count, failed: count - answered.length, connectMaxMs: at(connects, 1), firstByteP50Ms: at(firstBytes, 0.5), firstByteP90Ms: at(firstBytes, 0.9), firstByteMaxMs: at(firstBytes, 1) })}\n`,
);
