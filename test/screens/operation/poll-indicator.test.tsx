import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { App } from '../../../src/app/app';
import { createAppState } from '../../../src/app/app-state';
import type { LiveStateSource } from '../../../src/lib/poll-sharing/use-shared-polls';
import { holdSession } from '../../support/console-server';
import { withFakeConsoleClock } from '../../support/fake-clock';
import { setupSimServer } from '../../support/sim-server';

// The poll indicator says which source is in use (docs/live.md, "The fallback"): "Live" while the stream brings
// the changes, and the checks' pace while the page polls; it follows the stream going down and coming back.

const sim = setupSimServer({ start: Date.now() });
withFakeConsoleClock();

/** The stream's state as the page reads it, switched by the test. */
function switchableLive(): LiveStateSource & { set: (state: 'live' | 'down') => void } {
  let state: 'live' | 'down' = 'down';
  const listeners = new Set<() => void>();
  return {
    state: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(next) {
      state = next;
      act(() => {
        for (const listener of [...listeners]) listener();
      });
    },
  };
}

function renderWithLive(path: string) {
  const live = switchableLive();
  const state = { ...createAppState({ session: holdSession(sim.apiKey) }), live };
  window.history.pushState({}, '', path);
  render(<App state={state} />);
  return live;
}

describe('the poll indicator', () => {
  it('on an operation in flight says "Live" while the stream is in use, and the checks’ pace while polling', async () => {
    localStorage.removeItem('ops-console.poll-interval-ms');
    const project = sim.cp.addProject({ name: 'Indicator', ownerId: sim.seed.userId, compute: 'idle' });
    const op = sim.cp.addOperation({ projectId: project.id, action: 'create_branch', startAs: 'running', durationMs: 600_000, fail: false });
    const live = renderWithLive(`/projects/${project.id}/operations/${op.id}`);
    const bar = await screen.findByRole('group', { name: 'Live updates' });
    expect(bar).toHaveTextContent(/Checking every 5 s · Last checked \d+ s ago · next check in \d+ s/);
    expect(screen.queryByText('Live', { exact: true })).not.toBeInTheDocument();

    live.set('live');
    expect(bar).toHaveTextContent(/^Live Check now/);
    expect(bar).not.toHaveTextContent('Checking every');

    live.set('down');
    expect(bar).toHaveTextContent(/Checking every 5 s · Last checked/);
  });

  it('on a project’s history with work in flight says "Live" while the stream is in use, and the pace while polling', async () => {
    localStorage.removeItem('ops-console.poll-interval-ms');
    const project = sim.cp.addProject({ name: 'Indicator history', ownerId: sim.seed.userId, compute: 'idle' });
    sim.cp.addOperation({ projectId: project.id, action: 'create_branch', startAs: 'running', durationMs: 600_000, fail: false });
    const live = renderWithLive(`/projects/${project.id}`);
    expect(await screen.findByText('Checking every 5 s: operations in progress are refreshed.')).toBeInTheDocument();
    live.set('live');
    expect(screen.getByText('Live: operations in progress are refreshed.')).toBeInTheDocument();
    live.set('down');
    expect(screen.getByText('Checking every 5 s: operations in progress are refreshed.')).toBeInTheDocument();
  });
});
