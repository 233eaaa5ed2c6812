import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../server/config';
import { createLogger, type LogDestination } from '../../../server/log/logger';
import { createOutage } from '../../../server/log/outage';
import { runInRequest } from '../../../server/log/request-context';

// docs/operations.md, "Logs": a JSON line per request and per event, readable with LOG_FORMAT=pretty or on a
// terminal, as little as LOG_LEVEL asks; a failure that repeats is one line when it starts and one, with its
// count, when it ends.

function collect(isTTY = false): LogDestination & { lines: string[] } {
  const lines: string[] = [];
  return { lines, isTTY, write: (line: string) => lines.push(line) };
}

const aRequest = { requestId: 'req-1', method: 'GET', route: '/projects/:projectId', status: 200, durationMs: 12.34 };

describe('the log', () => {
  it('is a JSON line per request and per event, an event written for a request naming its id', () => {
    const out = collect();
    const log = createLogger({ destination: out });

    log.request(aRequest);
    runInRequest({ id: 'req-1', route: '/api/v2/*' }, () => log('The API at api.example answers again', { event: 'api.unreachable.over' }));
    log('Archive: this instance holds the collector lock and collects', { event: 'archive.leading' });

    const [request, during, outside] = out.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(request).toMatchObject({
      level: 'info',
      event: 'request',
      request_id: 'req-1',
      method: 'GET',
      route: '/projects/:projectId',
      status: 200,
      duration_ms: 12.3,
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
    });
    expect(during).toMatchObject({ level: 'info', event: 'api.unreachable.over', request_id: 'req-1', msg: 'The API at api.example answers again' });
    expect(outside).not.toHaveProperty('request_id');
    expect(out.lines.every((line) => line.endsWith('\n'))).toBe(true);
  });

  it('reads as plain lines with LOG_FORMAT=pretty, and on a terminal without it', () => {
    for (const out of [collect(false), collect(true)]) {
      const log = createLogger({ destination: out, format: out.isTTY ? undefined : 'pretty' });
      log.request(aRequest);
      log('Store: Postgres at db:5432/console does not answer', { event: 'store.unavailable', level: 'warn' });

      const text = stripVTControlCharacters(out.lines.join(''));
      expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/projects\/:projectId 200 .*"request_id":"req-1"/m);
      expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: Store: Postgres at db:5432\/console does not answer .*"event":"store\.unavailable"/m);
      expect(text).not.toMatch(/^\{/m);
    }
  });

  it('writes only what LOG_LEVEL lets through: warn leaves out the requests, keeps the failures', () => {
    const out = collect();
    const log = createLogger({ destination: out, level: 'warn' });
    log.request(aRequest);
    log('Archive: this instance holds the collector lock and collects', { event: 'archive.leading' });
    log('Store: gone', { event: 'store.unavailable', level: 'warn' });

    expect(out.lines.map((line) => (JSON.parse(line) as { event: string }).event)).toEqual(['store.unavailable']);
  });

  it('says a repeated failure once when it starts and once when it ends, with how many times it failed', () => {
    const out = collect();
    const log = createLogger({ destination: out });
    let now = 0;
    const outage = createOutage(log, {
      event: 'store.unavailable',
      fields: { store: 'Postgres at db:5432/console' },
      over: 'Store: answers again',
      now: () => now,
    });

    for (let second = 0; second < 30; second++) {
      now = second * 1_000;
      outage.failed(`Store: does not answer (try ${second})`);
    }
    now = 31_000;
    outage.recovered();
    outage.recovered();

    expect(out.lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 'warn', event: 'store.unavailable', store: 'Postgres at db:5432/console', msg: 'Store: does not answer (try 0)' }),
      expect.objectContaining({
        level: 'info',
        event: 'store.unavailable.over',
        failures: 30,
        outage_s: 31,
        msg: 'Store: answers again after 31 s (30 failed tries)',
      }),
    ]);
  });
});

describe('LOG_FORMAT, LOG_LEVEL and METRICS_TOKEN', () => {
  it('are read once at start, and a bad value stops it with a message', () => {
    expect(readConfig({ LOG_FORMAT: 'pretty', LOG_LEVEL: 'WARN', METRICS_TOKEN: 'a-token-of-32-characters-0000000' })).toMatchObject({
      logFormat: 'pretty',
      logLevel: 'warn',
      metricsToken: 'a-token-of-32-characters-0000000',
    });
    expect(readConfig({})).toMatchObject({ logFormat: undefined, logLevel: 'info', metricsToken: undefined });
    expect(() => readConfig({ LOG_FORMAT: 'xml' })).toThrow('LOG_FORMAT must be json or pretty, not "xml".');
    expect(() => readConfig({ LOG_LEVEL: 'loud' })).toThrow(/^LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, not "loud"\.$/);
    expect(() => readConfig({ METRICS_TOKEN: 'short' })).toThrow(/^METRICS_TOKEN must be at least 16 printable characters without spaces/);
    expect(() => readConfig({ METRICS_TOKEN: 'a token with spaces in it' })).toThrow(/^METRICS_TOKEN must be/);
  });
});
