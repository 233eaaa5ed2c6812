// Serves `/api/v2` on the console's own origin for `npm run dev` and `npm start` (vite preview): the
// in-process simulator by default, or a forwarding proxy to API_URL. Also sets the security headers.
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { runnerImport, type Plugin, type PreviewServer, type ViteDevServer } from 'vite';
import type * as ApiBackendModule from './api-backend';
import type { ApiBackend } from './api-backend';
// `.js`: vite.config.ts bundles this file, and Vite warns on every config load about extensionless imports.
import { FAULTS_CONTROL_PATH, isApiPath, isFaultControlPath } from './node-adapter.js';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every response; dev leaves out the CSP because Vite's HMR and React refresh inject inline scripts. */
export function securityHeaders({ withCsp }: { withCsp: boolean }): Record<string, string> {
  return {
    ...(withCsp ? { 'Content-Security-Policy': CONTENT_SECURITY_POLICY } : {}),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}

// Through Vite's module runner rather than an import: vite.config.ts is bundled on every load (vitest
// too), and the simulator must not be part of that bundle, nor be seeded or print anything then.
const API_BACKEND_MODULE = fileURLToPath(new URL('./api-backend.ts', import.meta.url));

async function loadApiBackend(root: string, env: NodeJS.ProcessEnv): Promise<ApiBackend> {
  const { module } = await runnerImport<typeof ApiBackendModule>(API_BACKEND_MODULE, { root, logLevel: 'warn' });
  return module.createApiBackend(env);
}

function consoleUrl(address: AddressInfo, configuredHost: string | boolean | undefined): string {
  const host = typeof configuredHost === 'string' && configuredHost !== '' ? configuredHost : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/`;
}

/**
 * The simulator's fault control route is a development tool: always there on `npm run dev`, on
 * `npm start` only with SIM_FAULTS=1 (the browser tests), and never when API_URL forwards to a real API.
 */
export function faultControlEnabled(kind: 'dev' | 'preview', env: NodeJS.ProcessEnv): boolean {
  if (env.API_URL?.trim()) return false;
  return kind === 'dev' || env.SIM_FAULTS === '1';
}

async function mount(server: ViteDevServer | PreviewServer, kind: 'dev' | 'preview', env: NodeJS.ProcessEnv): Promise<void> {
  const headers = Object.entries(securityHeaders({ withCsp: kind === 'preview' }));
  const withFaultControl = faultControlEnabled(kind, env);
  const { config, httpServer } = server;
  // Made once per server, on its first request or when it starts listening, whichever comes first.
  let backend: Promise<ApiBackend> | undefined;
  const getBackend = (): Promise<ApiBackend> => (backend ??= loadApiBackend(config.root, env));

  server.middlewares.use((req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    if (isFaultControlPath(req.url)) {
      res.setHeader('Cache-Control', 'no-store');
      // Unmounted, it answers like any unknown path would, not with the app's HTML.
      const notFound = () => {
        res.statusCode = 404;
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        res.end('Not found');
      };
      if (!withFaultControl) {
        notFound();
        return;
      }
      getBackend().then((api) => (api.faultControl ? api.faultControl(req, res) : notFound()), next);
      return;
    }
    if (!isApiPath(req.url)) {
      next();
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    getBackend().then((api) => api.handle(req, res), next);
  });

  httpServer?.once('listening', () => {
    const address = httpServer.address();
    if (address === null || typeof address === 'string') return;
    const host = kind === 'preview' ? config.preview.host : config.server.host;
    getBackend().then(
      (api) => {
        const lines = [`Ops Console: ${consoleUrl(address, host)}`, ...api.banner];
        if (withFaultControl && api.faultControl) lines.push(`Fault injection: ${FAULTS_CONTROL_PATH} (see README)`);
        config.logger.info(`\n${lines.map((line) => `  ${line}`).join('\n')}\n`);
      },
      (error: unknown) => {
        config.logger.error(`Ops Console: /api/v2 is unavailable: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  });

  // A bad API_URL stops start-up here instead of failing every request later.
  if (env.API_URL?.trim()) await getBackend();
}

export interface OpsConsoleOptions {
  /** Where API_URL and SIM_API_KEY are read from; tests pass their own. */
  env?: NodeJS.ProcessEnv;
}

export function opsConsole({ env = process.env }: OpsConsoleOptions = {}): Plugin {
  return {
    name: 'ops-console',
    configureServer(server) {
      return mount(server, 'dev', env);
    },
    configurePreviewServer(server) {
      return mount(server, 'preview', env);
    },
  };
}
