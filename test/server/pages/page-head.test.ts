import http from 'node:http';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageData } from '../../../src/api/page-data';
import { servePage } from '../../../server/pages/page';
import { close, listen } from '../http-helpers';

// A rendered page's head must leave before its data is fetched, even when the API answers in microtasks
// (the in-process simulator): Node corks a response's socket until the next tick, so a render that never
// yields to the event loop would carry the head out with the body. The client runs on its own thread, so
// it sees the head arrive while this thread is still busy with the render.

const TEMPLATE = '<!doctype html><html><head><title>t</title></head><body><div id="root"><!--app-html--></div></body></html>';
const DATA: PageData = { session: { signedIn: true, fingerprint: 'fp', keyKind: 'personal', remembered: false } };
const BUSY_MS = 150;

/** GETs `url` on another thread: when (epoch ms) the head part and the end of the page arrived. */
function fetchOnAnotherThread(url: string): Promise<{ headAt: number; endAt: number }> {
  const worker = new Worker(
    `const http = require('node:http');
     const { parentPort, workerData } = require('node:worker_threads');
     http.get(workerData, (res) => {
       let body = '';
       let headAt = 0;
       res.setEncoding('utf8');
       res.on('data', (chunk) => { body += chunk; if (!headAt && body.includes('<div id="root">')) headAt = Date.now(); });
       res.on('end', () => parentPort.postMessage({ headAt, endAt: Date.now() }));
     });`,
    { eval: true, workerData: url },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', (times: { headAt: number; endAt: number }) => {
      resolve(times);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

describe('a rendered page’s head', () => {
  let server: http.Server;
  let port = 0;
  let renderStartedAt = 0;
  let renderEndedAt = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      void servePage(req, res, {
        template: { html: () => Promise.resolve(TEMPLATE) },
        data: DATA,
        session: null,
        fetchApi: () => Promise.reject(new Error('not called')),
        render: () =>
          Promise.resolve({
            headTags: '',
            // Busy in microtasks only, as a render on the in-process API is: no timer or socket event can run meanwhile.
            render: async () => {
              renderStartedAt = Date.now();
              while (Date.now() - renderStartedAt < BUSY_MS) await Promise.resolve();
              renderEndedAt = Date.now();
              return { kind: 'unavailable', problem: 'test' };
            },
          }),
      });
    });
    port = await listen(server);
  });
  afterAll(() => close(server));

  it('reaches the browser before the render of the body is done', async () => {
    const { headAt, endAt } = await fetchOnAnotherThread(`http://127.0.0.1:${port}/projects/p`);

    expect(renderEndedAt - renderStartedAt).toBeGreaterThanOrEqual(BUSY_MS);
    expect(headAt).toBeGreaterThan(0);
    expect(headAt).toBeLessThan(renderEndedAt);
    expect(endAt).toBeGreaterThanOrEqual(renderEndedAt);
  });
});
