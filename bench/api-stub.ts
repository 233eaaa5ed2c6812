// The load test's API: a bare node:http process on loopback answering recorded requests with fixed
// bytes (bench/load.ts records them from the simulator first), so the console's server is measured,
// not the simulator. Run as `node --import tsx bench/api-stub.ts <answers.json>`; prints `port <n>`.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Pathname below the API base → the answer, whatever the query or the key. */
export type StubAnswers = Record<string, { status: number; body: string }>;

const file = process.argv[2];
if (!file) throw new Error('usage: api-stub.ts <answers.json>');
const answers = new Map(
  Object.entries(JSON.parse(readFileSync(file, 'utf8')) as StubAnswers).map(([path, { status, body }]) => [path, { status, body: Buffer.from(body) }]),
);
const notFound = Buffer.from('{"code":"","message":"not recorded"}');

const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const answer = answers.get(path);
  res.writeHead(answer?.status ?? 404, { 'content-type': 'application/json', 'content-length': (answer?.body ?? notFound).length });
  res.end(answer?.body ?? notFound);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`));
