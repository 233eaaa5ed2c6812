import { configure, screen, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '../support/render-app';
import { setupSimServer } from '../support/sim-server';

// Ids are what people paste into tickets, the CLI and support chats: each has its own Copy button.

const sim = setupSimServer({ start: Date.now() });

beforeAll(() => configure({ asyncUtilTimeout: 5_000 }));

describe('copy buttons for ids', () => {
  it("copies an operation's id, and its project, branch and compute ids", async () => {
    const project = sim.cp.addProject({ name: 'Copying', ownerId: sim.seed.userId, compute: 'idle' });
    const op = sim.cp.addOperation({
      projectId: project.id,
      action: 'start_compute',
      status: 'finished',
      branchId: project.defaultBranchId,
      endpointId: project.endpointId ?? undefined,
    });
    const { user } = renderApp(`/projects/${project.id}/operations/${op.id}`, { apiKey: sim.apiKey });
    await screen.findByRole('heading', { level: 1, name: 'Start compute' });

    const copies: [string, string][] = [
      ['Copy operation id', op.id],
      ['Copy project id', project.id],
      ['Copy branch id', project.defaultBranchId],
      ['Copy compute id', project.endpointId ?? ''],
    ];
    for (const [name, id] of copies) {
      const button = screen.getByRole('button', { name });
      await user.click(button);
      expect(await navigator.clipboard.readText()).toBe(id);
      expect(within(button.parentElement ?? document.body).getByRole('status')).toHaveTextContent('Copied.');
    }
    // An ended operation: nothing left to check, watch or pace.
    expect(screen.queryByRole('button', { name: 'Check now' })).not.toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Refresh every' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Watch/ })).not.toBeInTheDocument();
  });

  it("copies a project's id from its page", async () => {
    const project = sim.cp.addProject({ name: 'Copy project', ownerId: sim.seed.userId });
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await screen.findByRole('heading', { level: 1, name: 'Copy project' });
    await user.click(screen.getByRole('button', { name: 'Copy project id' }));
    expect(await navigator.clipboard.readText()).toBe(project.id);
  });
});
