// Rate limiting is the HTTP layer's (sim/handlers.ts): the platform's 700 requests a minute per key and
// bursts of 40 a second per route, refused with 429 and Retry-After.
import { describe, expect, it } from 'vitest';
import { SECOND, createSim, json } from './support';

function withProject(options: Parameters<typeof createSim>[0] = {}) {
  const sim = createSim(options);
  const owner = sim.personalUser();
  const project = sim.cp.addProject({ name: 'limited', ownerId: owner.userId, compute: false });
  return { ...sim, owner, project };
}

describe('429 rate limiting', () => {
  it('refuses the 41st request to one route within a second with Retry-After, while other routes still answer', async () => {
    const sim = withProject();
    for (let i = 0; i < 40; i++) expect((await sim.call('GET', '/auth', { key: sim.owner.key })).status).toBe(200);
    const limited = await sim.call('GET', '/auth', { key: sim.owner.key });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(json(limited).message).toMatch(/40 requests per second/);
    expect(limited.requestId).toBeTruthy();
    expect((await sim.call('GET', '/projects', { key: sim.owner.key })).status).toBe(200);
    sim.clock.advance(SECOND);
    expect((await sim.call('GET', '/auth', { key: sim.owner.key })).status).toBe(200);
  });

  it('refuses requests past 700 a minute per key with Retry-After counting to the next minute', async () => {
    const sim = withProject();
    const other = sim.personalUser('Other');
    for (let i = 0; i < 700; i++) {
      const res = await sim.call('GET', '/auth', { key: sim.owner.key });
      expect(res.status).toBe(200);
      sim.clock.advance(50);
    }
    const limited = await sim.call('GET', `/projects/${sim.project.id}`, { key: sim.owner.key });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('25');
    expect(json(limited).message).toMatch(/700 requests per minute/);
    expect((await sim.call('GET', '/auth', { key: other.key })).status).toBe(200);
    sim.clock.advance(25 * SECOND);
    expect((await sim.call('GET', '/auth', { key: sim.owner.key })).status).toBe(200);
  });

  it('can be turned off for tests that poll against a frozen clock', async () => {
    const sim = withProject({ rateLimits: false });
    for (let i = 0; i < 60; i++) expect((await sim.call('GET', '/auth', { key: sim.owner.key })).status).toBe(200);
  });
});
