// A TCP relay between an instance and its Postgres, for the tests of a connection that goes silent: it forwards
// both ways until told to black-hole the connections a client named (by its startup message's application_name).
// Then it forwards nothing more either way and never closes the instance's side (the instance hears silence),
// and closes its Postgres side (Postgres ends that session and releases its locks, as it would once its
// keepalives failed).
import net from 'node:net';

export interface PgRelay {
  /** `url` with its host and port turned to the relay's. */
  url: string;
  /** Black-holes every open connection whose startup named `applicationName`: how many. */
  blackHole: (applicationName: string) => number;
  close: () => Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  startup: string;
  holed: boolean;
}

export async function startPgRelay(url: string): Promise<PgRelay> {
  const target = new URL(url);
  const pairs = new Set<Pair>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair: Pair = { client, upstream, startup: '', holed: false };
    pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      if (pair.startup === '') pair.startup = chunk.toString('latin1');
      if (!pair.holed) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!pair.holed) client.write(chunk);
    });
    const end = () => {
      if (pair.holed) return;
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: relayed.toString(),
    blackHole(applicationName) {
      let count = 0;
      for (const pair of pairs) {
        if (pair.holed || !pair.startup.includes(`application_name\0${applicationName}\0`)) continue;
        pair.holed = true;
        pair.upstream.destroy();
        count += 1;
      }
      return count;
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
