// The machine's limit for a load figure: a bare node:http process returning the very bytes the console
// answered (status, content type, body), to compare the console's server with. Run as
// `node --import tsx bench/bare-server.ts <body file> <content type>`; prints `port <n>`.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const [file, contentType = 'application/octet-stream'] = process.argv.slice(2);
if (!file) throw new Error('usage: bare-server.ts <body file> <content type>');
const body = readFileSync(file);
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`));
