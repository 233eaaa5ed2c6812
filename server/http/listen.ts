// The one place the console's processes start an HTTP server: the console itself, and the simulator served
// to several instances (server/process/run.ts). Listens strictly: a taken port is an error, not another port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostPort } from '../../src/lib/hosts';

/**
 * How long an idle keep-alive connection stays open: longer than what a load balancer or proxy in front keeps
 * one (60 s on most). A server that closes first races the client's next request on that socket, which then
 * fails (ECONNRESET; a proxy answers 502): Node's default of 5 s did that to a test client that waited 5 s.
 */
export const KEEP_ALIVE_MS = 65_000;

export function createHttpServer(): http.Server {
  const server = http.createServer();
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  return server;
}

export function listen(server: http.Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new Error(`Port ${port} on ${host} is already in use (set PORT to another one).`) : error);
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** `http://host:port/` of a listening address (IPv6 in brackets; a wildcard bind named by the address bound). */
export function originOf(address: AddressInfo, configuredHost: string): string {
  const host = configuredHost === '' ? address.address : configuredHost;
  return `http://${hostPort(host, address.port)}/`;
}
