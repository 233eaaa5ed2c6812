import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childScript } from '../../support/child-scripts';
import { postgresBin } from '../../support/postgres-server';
import { postgresDatabase } from './store-drivers';

// The pg driver (server/store/pg-db.ts) when the server ends a connection at the worst moment: just as the
// pool hands it from a finished query to a transaction waiting for it. fixtures/pool-handover.ts makes that
// moment happen every time (its event loop held while the answer and the server's goodbye arrive together)
// in a child process, since an 'error' event nobody listens to ends the process it happens in.

async function runFixture(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [await childScript('pool-handover')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('a pg connection the server ends as the pool hands it to a waiting transaction', () => {
  it('fails that transaction as "store unavailable", and the process lives to answer the next query', { timeout: 30_000 }, async () => {
    const run = await runFixture({ DATABASE_URL: await postgresDatabase(), PSQL: path.join(postgresBin() ?? '/usr/bin', 'psql') });

    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ query: 'answered', transaction: 'store unavailable', after: 'answered' });
  });
});
