import { configure, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '../support/render-app';
import { setupSimServer } from '../support/sim-server';

// Each screen names the tab after itself; after a route change focus lands on the new page's heading;
// a project the API does not know is one "Project not found" page, with nothing to act on.

const sim = setupSimServer({ start: Date.now() });

beforeAll(() => configure({ asyncUtilTimeout: 5_000 }));

describe('document titles and focus', () => {
  it('titles the projects list, a project and the API keys page, and moves focus to each new heading', async () => {
    const project = sim.cp.addProject({ name: 'acme-analytics-prod', ownerId: sim.seed.userId });
    const { user } = renderApp('/', { apiKey: sim.apiKey });
    await screen.findByRole('heading', { level: 1, name: 'Projects' });
    await waitFor(() => expect(document.title).toBe('Projects · Ops Console'));

    await user.click(await screen.findByRole('link', { name: 'acme-analytics-prod' }));
    const heading = await screen.findByRole('heading', { level: 1, name: 'acme-analytics-prod' });
    await waitFor(() => expect(document.title).toBe('acme-analytics-prod · Operations · Ops Console'));
    await waitFor(() => expect(heading).toHaveFocus());
    expect(project.id).toBeTruthy();

    await user.click(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'API keys' }));
    const keysHeading = await screen.findByRole('heading', { level: 1, name: 'API keys' });
    await waitFor(() => expect(document.title).toBe('API keys · Ops Console'));
    await waitFor(() => expect(keysHeading).toHaveFocus());
  });

  it('titles the page not found', async () => {
    renderApp('/no/such/page', { apiKey: sim.apiKey });
    await screen.findByRole('heading', { level: 1, name: 'Page not found' });
    await waitFor(() => expect(document.title).toBe('Page not found · Ops Console'));
  });
});

describe('a project that does not exist', () => {
  it('is one "Project not found" page: a heading and a way back, no errors, no actions, no exports', async () => {
    renderApp('/projects/no-such-project-123', { apiKey: sim.apiKey });
    expect(await screen.findByRole('heading', { level: 1, name: 'Project not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to your projects' })).toHaveAttribute('href', '/');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create branch' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Export/ })).not.toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Project not found · Ops Console'));
  });
});
