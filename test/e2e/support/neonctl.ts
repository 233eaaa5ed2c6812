import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// The platform's own CLI (the pinned `neonctl` devDependency), run with this Node through its installed
// bin against the console's /api/v2: its analytics off, its config in a throwaway folder, JSON output.

const BIN = join(dirname(createRequire(import.meta.url).resolve('neonctl/package.json')), 'bin', 'cli.js');

/** A port nothing listens on: any request the CLI sends anywhere but the simulator fails instead of leaving the machine. */
const NOWHERE = 'http://127.0.0.1:9';

/** A zod schema, classic or mini. */
interface Parser<T> {
  parse(value: unknown): T;
}

export interface Neonctl {
  /** Runs `neonctl <args> -o json`, expects exit code 0, and parses its output with `schema`. */
  json<T>(args: readonly string[], schema: Parser<T>): Promise<T>;
  /** Removes the config folder. */
  dispose(): Promise<void>;
}

export async function neonctl(baseURL: string | undefined, apiKey: string): Promise<Neonctl> {
  if (!baseURL) throw new Error('Playwright baseURL is not set');
  const home = await mkdtemp(join(tmpdir(), 'neonctl-e2e-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    // Never an interactive prompt (neonctl asks for an organization when not in CI).
    CI: 'true',
    HTTP_PROXY: NOWHERE,
    HTTPS_PROXY: NOWHERE,
    NO_PROXY: '127.0.0.1,localhost',
  };
  const global = ['--api-host', `${baseURL}/api/v2`, '--api-key', apiKey, '--config-dir', home, '--no-analytics', '--no-color', '-o', 'json'];

  function run(args: readonly string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(process.execPath, [BIN, ...args, ...global], { cwd: home, env, timeout: 60_000 }, (error, stdout, stderr) => {
        if (error) {
          // The demo key is no secret, but a failing test's output should still not carry keys around.
          const said = `${stderr}${stdout}`.replaceAll(apiKey, '<key>');
          reject(new Error(`neonctl ${args.join(' ')} exited with ${String(error.code ?? error.signal)}:\n${said}`));
        } else {
          resolve(stdout);
        }
      });
    });
  }

  return {
    async json(args, schema) {
      const stdout = await run(args);
      return schema.parse(JSON.parse(stdout));
    },
    dispose: () => rm(home, { recursive: true, force: true }),
  };
}
