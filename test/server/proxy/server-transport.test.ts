import { describe, expect, it } from 'vitest';
import { request } from '../../../src/api/request';
import { ProjectsPageSchema } from '../../../src/api/schemas';
import type { ApiCall } from '../../../server/http/node-bridge';
import { runInRequest } from '../../../server/log/request-context';
import { createApiBackend } from '../../../server/proxy/api-backend';
import { serverTransport } from '../../../server/proxy/server-transport';

// request() on the server (what server rendering will do): the wire layer runs without a window, with
// the transport it is given per call, and each call carries its own session's key.

const KEY = 'server-transport-key-000000000000';

describe('request() with the server transport', () => {
  const backend = createApiBackend({ simApiKey: KEY });

  it('reads the API in process with the session key it was given', async () => {
    const page = await request('/projects', ProjectsPageSchema, { query: { limit: 2 }, transport: serverTransport(backend.fetch, KEY) });

    expect(page.projects).toHaveLength(2);
    expect(typeof window).toBe('undefined');
  });

  it('keeps two sessions apart: each call is answered for its own key', async () => {
    const created = (await (
      await backend.fetch({
        method: 'POST',
        target: '/api/v2/api_keys',
        headers: new Headers({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }),
        body: new TextEncoder().encode('{"key_name":"other"}'),
      })
    ).json()) as { key: string };
    const wrong = request('/projects', ProjectsPageSchema, { transport: serverTransport(backend.fetch, `${KEY}-wrong`) });
    const right = request('/projects', ProjectsPageSchema, { transport: serverTransport(backend.fetch, created.key) });

    await expect(wrong).rejects.toMatchObject({ status: 401 });
    await expect(right).resolves.toMatchObject({ projects: expect.any(Array) as unknown });
  });

  it("sends the page's request id with each read it makes for the page (docs/operations.md)", async () => {
    const calls: ApiCall[] = [];
    const transport = serverTransport(async (call) => {
      calls.push(call);
      return backend.fetch(call);
    }, KEY);
    await runInRequest({ id: 'page-req-5', route: '/projects/:projectId' }, () => request('/projects', ProjectsPageSchema, { query: { limit: 1 }, transport }));

    expect(calls.map((call) => call.headers.get('x-request-id'))).toEqual(['page-req-5']);
  });
});
