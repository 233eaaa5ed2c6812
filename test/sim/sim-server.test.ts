import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ProjectsPageSchema } from '../../src/api/schemas';
import { setupSimServer } from '../support/sim-server';

const sim = setupSimServer({ apiKey: 'component-test-key' });

async function listProjects(): Promise<Response> {
  return fetch('http://localhost:5173/api/v2/projects?limit=400', { headers: { authorization: `Bearer ${sim.apiKey}` } });
}

describe('setupSimServer', () => {
  it('serves the seeded demo world to fetch at 2026-11-22T12:00:00Z', async () => {
    expect(sim.clock.now()).toBe(Date.parse('2026-11-22T12:00:00Z'));
    expect(sim.apiKey).toBe('component-test-key');
    const res = await listProjects();
    expect(res.status).toBe(200);
    expect(
      ProjectsPageSchema.parse(await res.json())
        .projects.map((p) => p.name)
        .sort(),
    ).toEqual(['blog-backend', 'scratchpad']);
  });

  it('lets a test change the world and the clock, and override a route for itself', async () => {
    sim.cp.addProject({ name: 'only-in-this-test', ownerId: sim.seed.userId });
    sim.clock.advance(60_000);
    sim.server.use(http.get('*/api/v2/auth', () => HttpResponse.json({ code: '', message: 'down' }, { status: 503 })));
    expect((await fetch('http://localhost:5173/api/v2/auth', { headers: { authorization: `Bearer ${sim.apiKey}` } })).status).toBe(503);
    const names = ProjectsPageSchema.parse(await (await listProjects()).json()).projects.map((p) => p.name);
    expect(names).toContain('only-in-this-test');
  });

  it('gives the next test a fresh world, clock and handlers', async () => {
    expect(sim.clock.now()).toBe(Date.parse('2026-11-22T12:00:00Z'));
    const names = ProjectsPageSchema.parse(await (await listProjects()).json()).projects.map((p) => p.name);
    expect(names).not.toContain('only-in-this-test');
    expect((await fetch('http://localhost:5173/api/v2/auth', { headers: { authorization: `Bearer ${sim.apiKey}` } })).status).toBe(200);
  });
});
