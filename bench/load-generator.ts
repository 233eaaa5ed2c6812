// autocannon in a process of its own, so the load generator's work is not counted against the server's
// event loop: `node --import tsx bench/load-generator.ts '<json options>'` prints one JSON result line.
import autocannon from 'autocannon';
import * as z from 'zod/mini';

const Options = z.object({
  url: z.string(),
  connections: z.number(),
  seconds: z.number(),
  headers: z.record(z.string(), z.string()),
  /** Counts answers whose body has this text (a rendered page's data block). */
  countBodiesWith: z.optional(z.string()),
});

const options = Options.parse(JSON.parse(process.argv[2] ?? '{}'));
let counted = 0;
const marker = options.countBodiesWith;
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  duration: options.seconds,
  headers: options.headers,
  timeout: 10,
  ...(marker === undefined
    ? {}
    : {
        requests: [
          {
            method: 'GET',
            onResponse: (_status: number, body: string) => {
              if (body.includes(marker)) counted++;
            },
          },
        ],
      }),
});
process.stdout.write(
  `${JSON.stringify({
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    counted,
  })}\n`,
);
