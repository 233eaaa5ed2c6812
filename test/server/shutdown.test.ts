import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, listen, rawRequest } from './http-helpers';

// Graceful shutdown of a real server process: SIGTERM while a request waits on a slow API lets that
// request finish, refuses new ones (health check says draining until the socket closes), then exits 0.

const FIXTURE = fileURLToPath(new URL('./fixtures/drain-server.ts', import.meta.url));

let release!: () => void;
let arrived!: () => void;
const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
const upstream = http.createServer((req, res) => {
  if (req.url?.endsWith('/slow')) {
    arrived();
    release = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"finished":true}');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
});
let apiUrl: string;

beforeAll(async () => {
  apiUrl = `http://127.0.0.1:${await listen(upstream)}/api/v2`;
});
afterAll(() => close(upstream));

describe('SIGTERM', () => {
  it('finishes the requests in flight, then exits 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', API_URL: apiUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await expect.poll(() => /Ops Console: http:\/\/127\.0\.0\.1:(\d+)\//.test(output), { timeout: 20_000 }).toBe(true);
      const port = Number(/Ops Console: http:\/\/127\.0\.0\.1:(\d+)\//.exec(output)![1]);
      expect((await rawRequest(port, { path: '/healthz' })).status).toBe(200);

      const inFlight = rawRequest(port, { path: '/api/v2/slow', headers: { authorization: 'Bearer drain-test-key' } });
      await slowArrived;
      child.kill('SIGTERM');
      await expect.poll(() => output).toContain('SIGTERM: finishing the requests in flight');
      // No new connection is taken once draining started.
      await expect(rawRequest(port, { path: '/healthz' })).rejects.toThrow();
      expect(child.exitCode).toBeNull();

      release();
      const answer = await inFlight;
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ finished: true });
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
