import { configure, screen, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PageSession } from '../../../src/api/page-data';
import type { Person } from '../../../src/model/roles';
import { holdSession } from '../../support/console-server';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// Team sign-in on the project page (docs/team.md, "What each role may do"): a control beyond the person's role is
// disabled, looks it, and a note a person sees says why; that note is the control's accessible description.
const sim = setupSimServer({ start: Date.now() });

beforeAll(() => configure({ asyncUtilTimeout: 5_000 }));

/** What the page's data block says for a person signed in through the identity provider (the team key's session). */
const teamSession = (person: Person): PageSession => ({ ...holdSession(sim.apiKey), person, team: 'oidc' });

function openProject(person: Person) {
  const project = sim.cp.addProject({ name: 'Roles', ownerId: sim.seed.userId, compute: 'active' });
  sim.cp.addBranch({ projectId: project.id, name: 'dev', compute: 'idle' });
  renderApp(`/projects/${project.id}`, { session: teamSession(person) });
}

const section = async () => (await screen.findByRole('heading', { name: 'Branches and computes' })).closest('section')!;

describe('controls beyond the person’s role', () => {
  it('a viewer’s are disabled, look it, and are described by one visible note that says which role can', async () => {
    openProject({ email: 'vera@example.com', name: 'Vera Viewer', role: 'viewer' });
    const branches = await section();
    const restart = (await within(branches).findAllByRole('button', { name: /^Restart compute / }))[0]!;
    expect(restart).toBeDisabled();
    expect(restart).toHaveAccessibleDescription('Operators can restart computes');
    expect(restart).toHaveClass('refused');
    expect(within(branches).getAllByRole('button', { name: /^Start compute / })[0]).toHaveAccessibleDescription('Operators can start computes');
    expect(within(branches).getAllByRole('button', { name: /^Suspend compute / })[0]).toHaveAccessibleDescription('Operators can suspend computes');
    expect(within(branches).getByRole('button', { name: 'Delete branch dev' })).toHaveAccessibleDescription('Operators can delete branches');
    const create = within(branches).getByRole('button', { name: 'Create branch' });
    expect(create).toBeDisabled();
    expect(create).toHaveAccessibleDescription('Operators can create branches');
    expect(create).toHaveClass('refused');
    // Said once for the place, in words on the page, not as a tooltip.
    const note = document.getElementById(restart.getAttribute('aria-describedby')!)!.closest('p')!;
    expect(branches).toContainElement(note);
    expect(note).toBeVisible();
    expect(note).toHaveTextContent(
      'Operators can create branches. Operators can start computes. Operators can suspend computes. Operators can restart computes. Operators can delete branches.',
    );
    expect(restart).not.toHaveAttribute('title');
  });

  it('an operator’s are offered, with no note', async () => {
    openProject({ email: 'otto@example.com', name: 'Otto Operator', role: 'operator' });
    const branches = await section();
    const restart = (await within(branches).findAllByRole('button', { name: /^Restart compute / }))[0]!;
    expect(within(branches).getByRole('button', { name: 'Create branch' })).toBeEnabled();
    expect(restart).not.toHaveAttribute('aria-describedby');
    expect(restart).not.toHaveClass('refused');
    expect(branches).not.toHaveTextContent(/Operators can/);
  });
});
