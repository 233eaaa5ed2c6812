// Starts the console's production server in process, on 127.0.0.1 and a free port, over a tiny built
// client in a temp folder; what it prints and logs is kept for the test to read: its JSON log lines as they
// were written (server/log/logger.ts), and the events' messages among them.
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '../../server/log/logger';
import { startServer, type RunningServer, type ServingParts, type StartOptions } from '../../server/process/compose';
import { createStaticAssets } from '../../server/http/static-assets';
import { pgliteDataDir } from '../support/pglite-template';
import { rawRequest, type RawRequest, type RawResponse } from './http-helpers';
import { testTempDir } from '../support/test-tmp';

export const TEST_HTML =
  '<!doctype html><html><head><title>Ops Console</title><script type="module" src="/assets/app-abc123.js"></script></head><body><div id="root"><!--app-html--></div></body></html>';

export interface TestServer {
  running: RunningServer;
  port: number;
  printed: string[];
  /** The events' messages (not the requests' lines), in order. */
  logged: string[];
  /** Every log line as JSON, requests' and events'. */
  lines: LogLine[];
  request: (request: RawRequest) => Promise<RawResponse>;
  stop: () => Promise<void>;
}

/** The SESSION_SECRET of a test server on a Postgres server (a test may give its own). */
export const TEST_DEPLOYMENT_SECRET = 'test-deployment-session-secret-00000000000';

/** A log line as the server wrote it. */
export type LogLine = Record<string, unknown> & { level: string; msg: string; event?: string; request_id?: string };

let clientDir: Promise<string> | undefined;

/** A built client: index.html, one hashed script with its precompressed copies, and a public file. */
export function testClientDir(): Promise<string> {
  clientDir ??= (async () => {
    const dir = await testTempDir('ops-console-client-');
    await mkdir(path.join(dir, 'assets'), { recursive: true });
    await writeFile(path.join(dir, 'index.html'), TEST_HTML);
    await writeFile(path.join(dir, 'assets', 'app-abc123.js'), 'console.log("app");\n'.repeat(100));
    await writeFile(path.join(dir, 'assets', 'app-abc123.js.br'), 'BROTLI');
    await writeFile(path.join(dir, 'assets', 'app-abc123.js.gz'), 'GZIP');
    await writeFile(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    return dir;
  })();
  return clientDir;
}

export async function removeTestClientDir(): Promise<void> {
  if (clientDir) await rm(await clientDir, { recursive: true, force: true });
  clientDir = undefined;
}

/**
 * `rendering`: server rendering plugged in (server/pages/server-render.ts), as `npm start` has it; `parts`: the
 * store's opener (a test holds it open) and the heavy reads' slots.
 */
export async function startTestServer(
  env: NodeJS.ProcessEnv,
  rendering: Pick<ServingParts, 'render' | 'renderDeadlineMs' | 'maxRenders' | 'turns'> = {},
  parts: Pick<StartOptions, 'openStore' | 'heavyReads'> = {},
): Promise<TestServer> {
  const printed: string[] = [];
  const logged: string[] = [];
  const lines: LogLine[] = [];
  const log = createLogger({
    format: 'json',
    destination: {
      write: (text: string) => {
        const line = JSON.parse(text) as LogLine;
        lines.push(line);
        if (line.event !== 'request') logged.push(line.msg);
      },
    },
  });
  const dir = await testClientDir();
  const running = await startServer({
    mode: 'production',
    // A DATA_DIR of its own, holding a migrated store as a folder that has served before does (PGlite's first
    // start, seconds of CPU, is paid once per run): each test server makes a new session secret unless the test shares one.
    // On a Postgres server the test is a deployment: its secret comes from the environment, as docs/deploying.md asks.
    env: {
      HOST: '127.0.0.1',
      PORT: '0',
      ...(env.DATABASE_URL
        ? { DATA_DIR: path.join(dir, `data-${randomUUID()}`), SESSION_SECRET: TEST_DEPLOYMENT_SECRET }
        : { DATA_DIR: await pgliteDataDir() }),
      ...env,
    },
    print: (line) => void printed.push(line),
    log,
    ...parts,
    serving: () => Promise.resolve({ template: { html: () => Promise.resolve(TEST_HTML) }, assets: createStaticAssets(dir), ...rendering }),
  });
  const port = new URL(running.url).port;
  return {
    running,
    port: Number(port),
    printed,
    logged,
    lines,
    request: (request) => rawRequest(Number(port), request),
    stop: async () => {
      running.server.closeAllConnections();
      await running.stop();
    },
  };
}

/** The `name=value` of a Set-Cookie header, and its attributes in lower case. */
export function parseSetCookie(header: string): { name: string; value: string; attributes: Map<string, string> } {
  const [pair = '', ...rest] = header.split(';').map((part) => part.trim());
  const eq = pair.indexOf('=');
  const attributes = new Map(
    rest.map((part) => {
      const at = part.indexOf('=');
      return at === -1 ? [part.toLowerCase(), ''] : [part.slice(0, at).toLowerCase(), part.slice(at + 1)];
    }),
  );
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes };
}
