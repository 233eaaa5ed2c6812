// `npm run bench -- --only=router`: what Fastify 5, as the server routes (server/routes/router.ts), costs against
// the same declarations dispatched by a bare find-my-way table with no Fastify around it (bench/router-table.ts,
// kept in the bench only) (docs/architecture.md, "How a request finds its route": the team's rule is Fastify
// unless it costs the proxied read or the rendered page more than 10 %). Two server processes over the built
// client and the embedded simulator (bench/router-server.ts), idle in turn; autocannon in a process of its own
// (bench/load-generator.ts); the runs alternate between the two so the machine's drift hits both alike.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiClient } from './api';
import { generate, LOAD_CONNECTIONS, LOAD_SECONDS, LOAD_TRIALS, LOAD_WARMUP_SECONDS, medianRun, startHelper, type LoadFigures } from './load';
import { sessionCookie } from './server';

const MOUNTS = ['table', 'fastify'] as const;
type Mount = (typeof MOUNTS)[number];
/** Past this, Fastify's cost decides against it (the team's rule). */
export const FASTIFY_MAX_COST = 0.1;

export interface RouterRun {
  what: string;
  path: string;
  table: LoadFigures;
  fastify: LoadFigures;
  /** Fastify's req/s against the table's, as a change: -0.05 is 5 % fewer requests a second. */
  rpsChange: number;
  p99Change: number;
  trials: Record<Mount, LoadFigures[]>;
}

export interface RouterResult {
  connections: number;
  seconds: number;
  runs: RouterRun[];
}

export async function measureRouter(env: NodeJS.ProcessEnv, apiKey: string): Promise<RouterResult> {
  const servers: Partial<Record<Mount, { port: number; child: ChildProcess; dataDir: string }>> = {};
  try {
    for (const mount of MOUNTS) {
      const dataDir = await mkdtemp(join(tmpdir(), `ops-console-router-${mount}-`));
      const helper = await startHelper('router-server.ts', [mount, join(import.meta.dirname, '..', 'dist', 'client/')], {
        ...env,
        DATA_DIR: dataDir,
        SIM_API_KEY: apiKey,
        HOST: '127.0.0.1',
        PORT: '0',
      });
      servers[mount] = { ...helper, dataDir };
    }
    const origin = (mount: Mount) => `http://127.0.0.1:${servers[mount]?.port ?? 0}`;
    const project = await apiClient(origin('table'), apiKey).bigProject();
    const id = encodeURIComponent(project.id);
    const cookies = { table: await sessionCookie(origin('table'), apiKey), fastify: await sessionCookie(origin('fastify'), apiKey) };
    const scenarios = [
      { what: 'proxied /api/v2 read (100 operations)', path: `/api/v2/projects/${id}/operations?limit=100`, accept: 'application/json' },
      { what: 'rendered deep link page', path: `/projects/${id}`, accept: 'text/html' },
    ];
    const runs: RouterRun[] = [];
    for (const scenario of scenarios) {
      process.stdout.write(`router: ${LOAD_CONNECTIONS} connections × ${LOAD_SECONDS} s on ${scenario.what}, table and Fastify in turn… `);
      const load = (mount: Mount, seconds: number) =>
        generate({
          url: `${origin(mount)}${scenario.path}`,
          connections: LOAD_CONNECTIONS,
          seconds,
          headers: { cookie: cookies[mount], accept: scenario.accept },
        });
      for (const mount of MOUNTS) if (LOAD_WARMUP_SECONDS > 0) await load(mount, LOAD_WARMUP_SECONDS);
      const trials: Record<Mount, LoadFigures[]> = { table: [], fastify: [] };
      for (let trial = 0; trial < LOAD_TRIALS; trial++) {
        // Which goes first alternates, so neither always meets the machine as the other left it.
        const order = trial % 2 === 0 ? MOUNTS : [...MOUNTS].reverse();
        for (const mount of order) trials[mount].push(await load(mount, LOAD_SECONDS));
      }
      const table = medianRun(trials.table);
      const fastify = medianRun(trials.fastify);
      runs.push({
        ...scenario,
        table,
        fastify,
        rpsChange: fastify.requestsPerSecond / table.requestsPerSecond - 1,
        p99Change: fastify.p99Ms / table.p99Ms - 1,
        trials,
      });
      process.stdout.write('done\n');
    }
    return { connections: LOAD_CONNECTIONS, seconds: LOAD_SECONDS, runs };
  } finally {
    for (const server of Object.values(servers)) {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
      await rm(server.dataDir, { recursive: true, force: true });
    }
  }
}

const percent = (change: number) => `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %`;

export function reportRouter(result: RouterResult): void {
  console.log(`\nRouting: a bare find-my-way table against Fastify 5 as the server routes (${result.connections} connections, median of runs):\n`);
  console.log(`  ${'load'.padEnd(40)} ${'table req/s'.padStart(12)} ${'p99'.padStart(8)} ${'Fastify req/s'.padStart(14)} ${'p99'.padStart(8)}  req/s    p99`);
  for (const run of result.runs) {
    console.log(
      `  ${run.what.padEnd(40)} ${run.table.requestsPerSecond.toFixed(0).padStart(12)} ${`${run.table.p99Ms} ms`.padStart(8)} ${run.fastify.requestsPerSecond.toFixed(0).padStart(14)} ${`${run.fastify.p99Ms} ms`.padStart(8)}  ${percent(run.rpsChange).padEnd(8)} ${percent(run.p99Change)}`,
    );
    const each = (mount: Mount) => run.trials[mount].map((t) => t.requestsPerSecond.toFixed(0)).join(', ');
    console.log(`    every run, req/s: table ${each('table')}; Fastify ${each('fastify')}`);
  }
  const costly = result.runs.filter((run) => -run.rpsChange > FASTIFY_MAX_COST || run.p99Change > FASTIFY_MAX_COST);
  console.log(
    costly.length === 0
      ? `  Fastify costs under ${FASTIFY_MAX_COST * 100} % on both: by the team's rule, the server routes with it.`
      : `  Fastify costs more than ${FASTIFY_MAX_COST * 100} % on ${costly.map((run) => run.what).join(' and ')}: by the team's rule, measure again on a quiet machine before keeping it.`,
  );
}
