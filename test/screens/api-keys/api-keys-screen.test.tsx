import type { QueryClient } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { App } from '../../../src/app/app';
import { heldKey, holdSession } from '../../support/console-server';
import { polyfillModalDialogs } from '../../support/modal-dialogs';
import { setupSimServer } from '../../support/sim-server';
import { authQueries } from '../../../src/api/auth';
import { RETRY_SAID } from '../../support/retry-said';

const sim = setupSimServer();

beforeAll(polyfillModalDialogs);

function renderKeysScreen(apiKey: string = sim.apiKey) {
  const session = holdSession(apiKey);
  window.history.pushState({}, '', '/settings/api-keys');
  const user = userEvent.setup();
  const holder: { client?: QueryClient } = {};
  const onQueryClient = (client: QueryClient) => {
    holder.client = client;
  };
  render(<App session={session} onQueryClient={onQueryClient} />);
  return {
    user,
    queryClient: () => {
      if (!holder.client) throw new Error('the app has not handed over its query client');
      return holder.client;
    },
  };
}

const region = (name: string | RegExp) => screen.findByRole('region', { name });
const personalKeys = () => region('Personal keys');
const acmeKeys = () => region('Acme Analytics keys');
const createForm = () => region('Create a key');

async function personalTable() {
  return within(await personalKeys()).findByRole('table', { name: 'Personal keys' });
}

function storageContents(storage: Storage): [string | null, string | null][] {
  return Array.from({ length: storage.length }, (_, i) => {
    const name = storage.key(i);
    return [name, name === null ? null : storage.getItem(name)];
  });
}

/** The secret as the dialog shows it. */
function secretIn(dialog: HTMLElement): string {
  return within(dialog).getByRole<HTMLInputElement>('textbox', { name: 'Secret' }).value;
}

/** Everything the console keeps: both storages and every cached query and mutation state. */
function everythingKept(queryClient: QueryClient): string {
  const queries = queryClient
    .getQueryCache()
    .getAll()
    .map((q) => q.state);
  const mutations = queryClient
    .getMutationCache()
    .getAll()
    .map((m) => m.state);
  return JSON.stringify({
    session: storageContents(sessionStorage),
    local: storageContents(localStorage),
    queries,
    mutations,
    url: window.location.href,
  });
}

/** A read through the console's query client, sent again now (a list still loading, a refresh). */
function readMeAgain(client: QueryClient) {
  return client.query({ ...authQueries.me(), staleTime: 0 });
}

/** In the create form, "Key for" set to Acme Analytics' organization key, once the form offers it. */
async function chooseAcmeOrganizationKey(user: ReturnType<typeof userEvent.setup>) {
  const form = await createForm();
  const keyFor = await within(form).findByRole('combobox', { name: 'Key for' });
  const acme = { name: /Acme Analytics: organization/ };
  await waitFor(() => expect(within(keyFor).getByRole('option', acme)).toBeInTheDocument());
  await user.selectOptions(keyFor, within(keyFor).getByRole('option', acme));
  return form;
}

function issue(scope: Parameters<typeof sim.cp.issueApiKey>[0], name: string) {
  return sim.cp.issueApiKey(scope, name);
}

describe('what the current key is', () => {
  it('a check of the key the API refuses for a while (503) says so with a countdown, then shows the key by itself', async () => {
    let refusals = 0;
    sim.server.use(
      http.get('*/api/v2/auth', () => {
        refusals += 1;
        return refusals === 1 ? HttpResponse.json({ code: '', message: 'auth service busy' }, { status: 503 }) : undefined;
      }),
    );
    renderKeysScreen();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not check this API key.');
    expect(alert).toHaveTextContent('auth service busy');
    expect(alert).toHaveTextContent(RETRY_SAID);
    expect(await region(/Signed in with: Personal key/)).toBeInTheDocument();
    expect(screen.queryByText('Could not check this API key.')).not.toBeInTheDocument();
  });

  it('organizations that cannot be read are said to be unknown, not absent', async () => {
    sim.server.use(http.get('*/api/v2/users/me/organizations', () => HttpResponse.json({ code: '', message: 'nope' }, { status: 500 })));
    renderKeysScreen();
    const panel = await region(/Signed in with: Personal key/);
    expect(await screen.findByText('Could not load your organizations.')).toBeInTheDocument();
    expect(panel).toHaveTextContent('Your personal projects and those of your organizations (which ones could not be read)');
  });

  it('shows a personal key, what it reaches and what it may do', async () => {
    renderKeysScreen();
    const panel = await region(/Signed in with: Personal key/);
    expect(panel).toHaveTextContent(`User${sim.seed.userId}`);
    await waitFor(() => expect(panel).toHaveTextContent('Your personal projects and the projects of Acme Analytics, Northwind Labs'));
    await waitFor(() => expect(panel).toHaveTextContent('Create and revoke keys of Acme Analytics, where you are an administrator'));
    // Each organization's part comes with its member list, which may arrive after the other's.
    await waitFor(() => expect(panel).toHaveTextContent('Create project-scoped keys for projects of Northwind Labs, where you are a member'));
    expect(panel).toHaveTextContent('See or revoke the keys of Northwind Labs: only its administrators can');
  });

  it('an organization key stays described, with its list, when a refresh of that list fails', async () => {
    const key = issue({ kind: 'organization', orgId: sim.seed.orgIds.acme }, 'acme-admin');
    const { queryClient } = renderKeysScreen(key.secret);
    const table = await within(await acmeKeys()).findByRole('table');
    sim.server.use(
      http.get('*/api/v2/organizations/:orgId/api_keys', () => HttpResponse.json({ code: '', message: 'bad request' }, { status: 400 }), { once: true }),
    );
    await queryClient().refetchQueries({ queryKey: ['api-keys'] });
    expect(await region(/Signed in with: Organization key/)).toBeInTheDocument();
    expect(within(table).getByRole('rowheader', { name: 'acme-admin' })).toBeInTheDocument();
    expect(screen.queryByText('Could not check this API key.')).not.toBeInTheDocument();
    expect(screen.queryByText('Checking what this key is and what it may do…')).not.toBeInTheDocument();
  });

  it('shows an organization key as admin of its organization, without personal keys', async () => {
    const key = issue({ kind: 'organization', orgId: sim.seed.orgIds.acme }, 'acme-admin');
    renderKeysScreen(key.secret);
    const panel = await region(/Signed in with: Organization key/);
    expect(panel).toHaveTextContent(`Acme Analytics (${sim.seed.orgIds.acme})`);
    expect(panel).toHaveTextContent('All projects of Acme Analytics, as an administrator');
    const table = await within(await acmeKeys()).findByRole('table');
    expect(within(table).getByRole('rowheader', { name: 'acme-admin' })).toBeInTheDocument();
    expect(within(table).getByRole('button', { name: 'Revoke key acme-admin' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Personal keys' })).not.toBeInTheDocument();
    expect(screen.getByText(/Personal keys are not listed/)).toBeInTheDocument();
    // One owner only, so there is nothing to choose but the project.
    expect(within(await createForm()).queryByRole('combobox', { name: 'Key for' })).not.toBeInTheDocument();
    expect(within(await createForm()).getByRole('combobox', { name: 'Project (optional)' })).toBeInTheDocument();
  });

  it('shows a project-scoped key with its project, and offers no Create or Revoke', async () => {
    const key = issue({ kind: 'project', orgId: sim.seed.orgIds.acme, projectId: sim.seed.projectIds.big }, 'ci-deploy');
    renderKeysScreen(key.secret);
    const panel = await region(/Signed in with: Project-scoped key/);
    expect(panel).toHaveTextContent(`acme-analytics-prod (${sim.seed.projectIds.big})`);
    expect(panel).toHaveTextContent('List, create or revoke API keys');
    expect(screen.getByText(/This key cannot list, create or revoke API keys/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Create/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Revoke/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Name' })).not.toBeInTheDocument();
  });
});

describe('the lists', () => {
  it('lists personal keys with name, id, created, created by, last used and where from', async () => {
    renderKeysScreen();
    const table = await personalTable();
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Name', 'ID', 'Created', 'Created by', 'Last used', 'Last used from', 'Actions']);
    const row = within(table).getByRole('rowheader', { name: 'demo-console' }).closest('tr');
    expect(row).not.toBeNull();
    expect(row).toHaveTextContent('Demo User');
    expect(row).toHaveTextContent('127.0.0.1');
    expect(within(row!).getByRole('button', { name: 'Revoke key demo-console' })).toBeInTheDocument();
  });

  it('lists the keys of organizations the user administers, project-scoped ones marked with their project', async () => {
    issue({ kind: 'organization', orgId: sim.seed.orgIds.acme }, 'acme-ops');
    issue({ kind: 'project', orgId: sim.seed.orgIds.acme, projectId: sim.seed.projectIds.staging }, 'staging-ci');
    renderKeysScreen();
    const table = await within(await acmeKeys()).findByRole('table', { name: 'Acme Analytics keys' });
    const orgRow = within(table).getByRole('rowheader', { name: 'acme-ops' }).closest('tr')!;
    expect(orgRow).toHaveTextContent('Whole organization');
    const scopedRow = within(table).getByRole('rowheader', { name: 'staging-ci' }).closest('tr')!;
    await waitFor(() => expect(scopedRow).toHaveTextContent(`Project acme-analytics-staging (${sim.seed.projectIds.staging})`));
  });

  it('does not list the keys of an organization where the user is only a member', async () => {
    renderKeysScreen();
    const northwind = await region('Northwind Labs keys');
    expect(await within(northwind).findByText(/You are a member of Northwind Labs, not an administrator/)).toBeInTheDocument();
    expect(within(northwind).queryByRole('table')).not.toBeInTheDocument();
    expect(within(northwind).queryByRole('button', { name: /Revoke/ })).not.toBeInTheDocument();
  });

  it('says so when a list is empty', async () => {
    sim.server.use(http.get('*/api/v2/api_keys', () => HttpResponse.json([]), { once: true }));
    renderKeysScreen();
    expect(await within(await personalKeys()).findByText('No personal keys yet.')).toBeInTheDocument();
    expect(await within(await acmeKeys()).findByText('No keys for Acme Analytics yet.')).toBeInTheDocument();
  });

  it('shows placeholders of the same shape while loading', async () => {
    renderKeysScreen();
    expect(await screen.findByText('Checking what this key is and what it may do…')).toBeInTheDocument();
    expect(screen.getByText('Loading keys…')).toBeInTheDocument();
    await personalTable();
    expect(screen.queryByText('Checking what this key is and what it may do…')).not.toBeInTheDocument();
  });

  it('shows a failed list with Retry, and Retry loads it', async () => {
    sim.server.use(http.get('*/api/v2/api_keys', () => HttpResponse.json({ code: '', message: 'storage is down' }, { status: 503 }), { once: true }));
    const { user } = renderKeysScreen();
    const section = await personalKeys();
    // Said at once, not a skeleton while the console waits to try again by itself.
    const alert = await within(section).findByRole('alert');
    expect(alert).toHaveTextContent('Could not load personal keys.');
    expect(alert).toHaveTextContent('storage is down');
    expect(alert).toHaveTextContent(RETRY_SAID);
    expect(within(section).queryByText('Loading personal keys…')).not.toBeInTheDocument();
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await within(section).findByRole('rowheader', { name: 'demo-console' })).toBeInTheDocument();
  });

  it('a list the API keeps refusing (503) says so, and loads by itself once the API answers', async () => {
    let refusals = 0;
    sim.server.use(
      http.get('*/api/v2/api_keys', () => {
        refusals += 1;
        return refusals <= 2 ? HttpResponse.json({ code: '', message: 'storage is down' }, { status: 503 }) : undefined;
      }),
    );
    renderKeysScreen();
    const section = await personalKeys();
    expect(await within(section).findByRole('alert')).toHaveTextContent('storage is down');
    // Backoff of 1 s, then 2 s: the third read answers, with no press of Retry.
    expect(await within(section).findByRole('rowheader', { name: 'demo-console' })).toBeInTheDocument();
    expect(refusals).toBe(3);
    expect(within(section).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('a refresh that fails keeps the list on screen', async () => {
    const { queryClient } = renderKeysScreen();
    const table = await personalTable();
    sim.server.use(http.get('*/api/v2/api_keys', () => HttpResponse.json({ code: '', message: 'bad request' }, { status: 400 }), { once: true }));
    await queryClient().refetchQueries({ queryKey: ['api-keys'] });
    expect(within(table).getByRole('rowheader', { name: 'demo-console' })).toBeInTheDocument();
    expect(within(await personalKeys()).queryByRole('alert')).not.toBeInTheDocument();
  });
});

describe('creating a key', () => {
  it('shows the new secret once with Copy, lists the key, and the secret works', async () => {
    const { user } = renderKeysScreen();
    await personalTable();
    const form = await createForm();
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'ci-deploy');
    await user.click(within(form).getByRole('button', { name: 'Create' }));

    const dialog = await screen.findByRole('dialog', { name: 'Key “ci-deploy” created' });
    expect(dialog).toHaveTextContent('you will not see it again');
    const secret = secretIn(dialog);
    expect(secret).toMatch(/^[a-z0-9]{64}$/);
    expect(sim.cp.authenticate(secret)).toMatchObject({ kind: 'personal', userId: sim.seed.userId });
    // Focus moved into the dialog, onto Copy.
    expect(within(dialog).getByRole('button', { name: 'Copy' })).toHaveFocus();

    await user.click(within(dialog).getByRole('button', { name: 'Copy' }));
    expect(await within(dialog).findByRole('button', { name: 'Copied' })).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe(secret);

    expect(within(await personalTable()).getByRole('rowheader', { name: 'ci-deploy' })).toBeInTheDocument();
  });

  it('never stores the secret: not in storage, the URL, a log, the query cache or the mutation cache', async () => {
    const logged = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) => vi.spyOn(console, level));
    const { user, queryClient } = renderKeysScreen();
    await personalTable();
    // Every state the create mutation ever had in the MutationCache, as it happened.
    const mutationStates: string[] = [];
    const unsubscribe = queryClient()
      .getMutationCache()
      .subscribe((event) => mutationStates.push(JSON.stringify(event.mutation?.state ?? null)));
    const form = await createForm();
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'kept-nowhere');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    const dialog = await screen.findByRole('dialog', { name: /created/ });
    const secret = secretIn(dialog);

    // While it is on screen, it is only on screen.
    expect(everythingKept(queryClient())).not.toContain(secret);
    expect(queryClient().getQueryCache().getAll().length).toBeGreaterThan(0);

    await user.click(within(dialog).getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(document.body).not.toHaveTextContent(secret);
    expect(screen.queryByDisplayValue(secret)).not.toBeInTheDocument();
    expect(everythingKept(queryClient())).not.toContain(secret);
    // gcTime 0: once nothing observes it, the create mutation leaves the MutationCache altogether.
    await waitFor(() =>
      expect(
        queryClient()
          .getMutationCache()
          .findAll({ mutationKey: ['api-keys', 'create'] }),
      ).toHaveLength(0),
    );
    // Focus is back where it was before the dialog.
    expect(within(form).getByRole('button', { name: 'Create' })).toHaveFocus();

    unsubscribe();
    expect(mutationStates.length).toBeGreaterThan(0);
    expect(mutationStates.join('\n')).not.toContain(secret);
    expect(JSON.stringify(logged.flatMap((spy) => spy.mock.calls))).not.toContain(secret);
    logged.forEach((spy) => spy.mockRestore());
  });

  it('drops the secret when the person navigates away with the dialog open', async () => {
    const { user, queryClient } = renderKeysScreen();
    await personalTable();
    const form = await createForm();
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'walk-away');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    const dialog = await screen.findByRole('dialog', { name: /created/ });
    const secret = secretIn(dialog);

    await user.click(screen.getByRole('link', { name: 'Projects' }));
    await screen.findByRole('heading', { level: 1, name: 'Projects' });
    expect(document.body).not.toHaveTextContent(secret);
    expect(everythingKept(queryClient())).not.toContain(secret);

    await user.click(screen.getByRole('link', { name: 'API keys' }));
    expect(await screen.findByRole('rowheader', { name: 'walk-away' })).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(document.body).not.toHaveTextContent(secret);
  });

  it('checks the name (1 to 64 characters) before sending anything', async () => {
    const posts: string[] = [];
    sim.onPageRequest((request) => {
      if (request.method === 'POST') posts.push(request.url);
    });
    const { user } = renderKeysScreen();
    await personalTable();
    const form = await createForm();
    const name = within(form).getByRole('textbox', { name: 'Name' });

    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('Enter a name for the key.');
    expect(name).toHaveAttribute('aria-invalid', 'true');

    await user.type(name, 'x'.repeat(65));
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('the limit is 64');
    expect(posts).toEqual([]);

    await user.clear(name);
    await user.type(name, 'y'.repeat(64));
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(await screen.findByRole('dialog', { name: /created/ })).toBeInTheDocument();
    expect(posts).toHaveLength(1);
  });

  it('creates an organization key, or a project-scoped one when a project is chosen', async () => {
    const { user } = renderKeysScreen();
    const form = await chooseAcmeOrganizationKey(user);
    const project = await within(form).findByRole('combobox', { name: 'Project (optional)' });
    await waitFor(() => expect(project).toBeEnabled());
    await user.selectOptions(project, within(project).getByRole('option', { name: /acme-analytics-staging/ }));
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'staging-deploy');
    await user.click(within(form).getByRole('button', { name: 'Create' }));

    const dialog = await screen.findByRole('dialog', { name: /staging-deploy/ });
    expect(dialog).toHaveTextContent(`Project-scoped key of Acme Analytics, scoped to project ${sim.seed.projectIds.staging}`);
    const secret = secretIn(dialog);
    expect(sim.cp.authenticate(secret)).toMatchObject({ kind: 'project', projectId: sim.seed.projectIds.staging });
    await user.click(within(dialog).getByRole('button', { name: 'Done' }));

    const row = (await within(await acmeKeys()).findByRole('rowheader', { name: 'staging-deploy' })).closest('tr')!;
    expect(row).toHaveTextContent('acme-analytics-staging');
  });

  it('says why the projects of an organization are not offered yet while their read is retried, then offers them', async () => {
    // The organization's project list is refused twice (1 s, then 2 s of backoff) before it answers.
    let refusals = 0;
    sim.server.use(
      http.get('*/api/v2/projects', ({ request }) => {
        if (new URL(request.url).searchParams.get('org_id') !== sim.seed.orgIds.acme || refusals >= 2) return undefined;
        refusals += 1;
        return HttpResponse.json({ code: '', message: 'projects are busy' }, { status: 503 });
      }),
    );
    const { user } = renderKeysScreen();
    const form = await chooseAcmeOrganizationKey(user);

    const project = await within(form).findByRole('combobox', { name: 'Project (optional)' });
    expect(
      await within(form).findByText(/The projects could not be loaded \(.*projects are busy.*\), so no project can be chosen; retrying in \d+ s\./),
    ).toBeInTheDocument();
    await waitFor(() => expect(project).toBeEnabled());
    expect(refusals).toBe(2);
    expect(within(project).getByRole('option', { name: /acme-analytics-staging/ })).toBeInTheDocument();
    expect(within(form).queryByText(/could not be loaded/)).not.toBeInTheDocument();
  });

  it('lets a member create only project-scoped keys, and asks for the project first', async () => {
    const { user } = renderKeysScreen();
    const form = await createForm();
    const keyFor = await within(form).findByRole('combobox', { name: 'Key for' });
    await waitFor(() => expect(within(keyFor).getByRole('option', { name: /Northwind Labs: project-scoped key/ })).toBeInTheDocument());
    await user.selectOptions(keyFor, within(keyFor).getByRole('option', { name: /Northwind Labs/ }));
    const project = await within(form).findByRole('combobox', { name: 'Project' });
    expect(within(project).queryByRole('option', { name: /None/ })).not.toBeInTheDocument();
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'storefront-ci');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('Choose a project');

    await waitFor(() => expect(project).toBeEnabled());
    await user.selectOptions(project, within(project).getByRole('option', { name: /northwind-storefront/ }));
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    const dialog = await screen.findByRole('dialog', { name: /storefront-ci/ });
    const secret = secretIn(dialog);
    expect(sim.cp.authenticate(secret)).toMatchObject({ kind: 'project', projectId: sim.seed.projectIds.storefront });
  });

  it('explains a refused create (403) in plain words', async () => {
    sim.server.use(http.post('*/api/v2/api_keys', () => HttpResponse.json({ code: '', message: 'nope' }, { status: 403 }), { once: true }));
    const { user } = renderKeysScreen();
    await personalTable();
    const form = await createForm();
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'refused');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    const alert = await within(form).findByRole('alert');
    expect(alert).toHaveTextContent('The key was not created.');
    expect(alert).toHaveTextContent('personal keys can only be created by the user who owns them');
    expect(alert).toHaveTextContent('The API said: nope');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('explains a refused organization key (403): only administrators may create one', async () => {
    sim.server.use(
      http.post('*/api/v2/organizations/:orgId/api_keys', () => HttpResponse.json({ code: '', message: 'forbidden' }, { status: 403 }), {
        once: true,
      }),
    );
    const { user } = renderKeysScreen();
    const form = await createForm();
    const keyFor = await within(form).findByRole('combobox', { name: 'Key for' });
    await waitFor(() => expect(within(keyFor).getByRole('option', { name: /Acme Analytics/ })).toBeInTheDocument());
    await user.selectOptions(keyFor, within(keyFor).getByRole('option', { name: /Acme Analytics/ }));
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'acme-ops');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent(
      "Only administrators of Acme Analytics (or Acme Analytics's own organization key) can create organization keys",
    );
  });
});

describe('revoking a key', () => {
  it('asks in a dialog, moves focus into it, and gives it back on Cancel', async () => {
    const { user } = renderKeysScreen();
    issue({ kind: 'personal', userId: sim.seed.userId }, 'old-laptop');
    const table = await personalTable();
    const revoke = await within(table).findByRole('button', { name: 'Revoke key old-laptop' });
    await user.click(revoke);
    const dialog = screen.getByRole('alertdialog', { name: 'Revoke key “old-laptop”?' });
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(revoke).toHaveFocus();
    expect(within(table).getByRole('rowheader', { name: 'old-laptop' })).toBeInTheDocument();
  });

  it('removes the key from the list at once, and the key gets 401 from then on', async () => {
    const old = issue({ kind: 'personal', userId: sim.seed.userId }, 'old-laptop');
    const { user } = renderKeysScreen();
    const table = await personalTable();
    await user.click(await within(table).findByRole('button', { name: 'Revoke key old-laptop' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Revoke' }));

    await waitFor(() => expect(within(table).queryByRole('rowheader', { name: 'old-laptop' })).not.toBeInTheDocument());
    expect(sim.cp.authenticate(old.secret)).toBeNull();
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(screen.getByRole('heading', { name: 'Personal keys' })).toHaveFocus();
    expect(screen.getByText('Key “old-laptop” was revoked.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'API keys' })).toBeInTheDocument();
  });

  it('revokes a project-scoped key of an administered organization', async () => {
    const scoped = issue({ kind: 'project', orgId: sim.seed.orgIds.acme, projectId: sim.seed.projectIds.big }, 'prod-ci');
    const { user } = renderKeysScreen();
    const section = await acmeKeys();
    await user.click(await within(section).findByRole('button', { name: 'Revoke key prod-ci' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Revoke' }));
    expect(await within(section).findByText('No keys for Acme Analytics yet.')).toBeInTheDocument();
    expect(sim.cp.authenticate(scoped.secret)).toBeNull();
  });

  it('signs the console out with a message when the key it uses is revoked', async () => {
    const { user } = renderKeysScreen();
    const table = await personalTable();
    await user.click(within(table).getByRole('button', { name: 'Revoke key demo-console' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Revoke' }));

    expect(await screen.findByText(/You revoked the API key this console was using/)).toBeInTheDocument();
    expect(screen.getByLabelText(/API key/)).toHaveAttribute('type', 'password');
    expect(heldKey()).toBeNull();
  });

  it('says the person revoked the key even when another read is refused first', async () => {
    // The revoke lands, and before its answer arrives another read reaches the API with the now-revoked key
    // (a list still loading, a refresh): its 401 must not sign the console out as "rejected".
    const { user, queryClient } = renderKeysScreen();
    const table = await personalTable();
    let refused: unknown;
    sim.server.use(
      http.delete(
        '*/api/v2/api_keys/:keyId',
        async ({ params }) => {
          sim.cp.revokeApiKey(Number(params.keyId));
          refused = await readMeAgain(queryClient()).catch((error: unknown) => error);
          return HttpResponse.json({ id: Number(params.keyId), name: 'demo-console', revoked: true });
        },
        { once: true },
      ),
    );
    await user.click(within(table).getByRole('button', { name: 'Revoke key demo-console' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Revoke' }));

    expect(await screen.findByText(/You revoked the API key this console was using/)).toBeInTheDocument();
    expect(refused).toMatchObject({ status: 401 });
    expect(screen.queryByText(/Your API key was rejected/)).not.toBeInTheDocument();
    expect(heldKey()).toBeNull();
  });

  // The refused read's 401 ends the session and expires the cookie (docs/session-and-security.md), so the list the
  // page reads again after the refused revoke goes without one and gets the server's own 401 `not_signed_in`: the
  // rejection that waited is why, not a sign-out of the person's own.
  it('a read refused while a revoke is being refused still signs out as rejected', async () => {
    issue({ kind: 'organization', orgId: sim.seed.orgIds.acme }, 'acme-ops');
    const { user, queryClient } = renderKeysScreen();
    const section = await acmeKeys();
    sim.server.use(
      http.delete(
        '*/api/v2/organizations/:orgId/api_keys/:keyId',
        async () => {
          // Meanwhile the console's own key is revoked elsewhere, and a read is refused for it.
          const own = sim.cp.authenticate(sim.apiKey);
          if (own) sim.cp.revokeApiKey(own.keyId);
          await readMeAgain(queryClient()).catch(() => undefined);
          return HttpResponse.json({ code: '', message: 'not an admin' }, { status: 403 });
        },
        { once: true },
      ),
    );
    await user.click(await within(section).findByRole('button', { name: 'Revoke key acme-ops' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Revoke' }));

    // The 401 waited for the revoke; the revoke was refused, so the 401 was the API rejecting the key. The key
    // screen comes with the reason it gives.
    await screen.findByLabelText(/API key/);
    expect(screen.getByText(/Your API key was rejected/)).toBeInTheDocument();
    expect(screen.queryByText(/You revoked/)).not.toBeInTheDocument();
    expect(heldKey()).toBeNull();
  });

  it('signs out an organization key that revokes itself', async () => {
    const key = issue({ kind: 'organization', orgId: sim.seed.orgIds.acme }, 'acme-admin');
    const { user } = renderKeysScreen(key.secret);
    const section = await acmeKeys();
    await user.click(await within(section).findByRole('button', { name: 'Revoke key acme-admin' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Revoke' }));
    expect(await screen.findByText(/You revoked the API key this console was using/)).toBeInTheDocument();
  });

  it('explains a refused revoke (403) in plain words and puts the key back', async () => {
    issue({ kind: 'organization', orgId: sim.seed.orgIds.acme }, 'acme-ops');
    sim.server.use(
      http.delete('*/api/v2/organizations/:orgId/api_keys/:keyId', () => HttpResponse.json({ code: '', message: 'not an admin' }, { status: 403 }), {
        once: true,
      }),
    );
    const { user } = renderKeysScreen();
    const section = await acmeKeys();
    await user.click(await within(section).findByRole('button', { name: 'Revoke key acme-ops' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Revoke' }));
    const alert = await within(section).findByRole('alert');
    expect(alert).toHaveTextContent('Key “acme-ops” was not revoked.');
    expect(alert).toHaveTextContent("Only administrators of Acme Analytics (or Acme Analytics's own organization key) can revoke its keys");
    expect(alert).toHaveTextContent('The API said: not an admin');
    expect(await within(section).findByRole('rowheader', { name: 'acme-ops' })).toBeInTheDocument();
  });

  it('explains a key that is already gone (404)', async () => {
    const other = issue({ kind: 'personal', userId: sim.seed.userId }, 'revoked-elsewhere');
    const { user } = renderKeysScreen();
    const section = await personalKeys();
    await user.click(await within(section).findByRole('button', { name: 'Revoke key revoked-elsewhere' }));
    sim.cp.revokeApiKey(other.id);
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Revoke' }));
    const alert = await within(section).findByRole('alert');
    expect(alert).toHaveTextContent('it may already have been revoked');
    await waitFor(() => expect(within(section).queryByRole('rowheader', { name: 'revoked-elsewhere' })).not.toBeInTheDocument());
  });
});
