import { useQuery } from '@tanstack/react-query';
import { useId, type ReactNode } from 'react';
import { authQueries } from '../../api/auth';
import type { CurrentUser, Organization } from '../../api/schemas';
import type { KeyAccess } from './use-key-access';

type KnownAccess = Exclude<KeyAccess, { state: 'loading' } | { state: 'error' }>;

function orgName(org: Organization | undefined, orgId: string): string {
  return org ? org.name : orgId;
}

function names(orgs: readonly Organization[]): string {
  return orgs.map((o) => o.name).join(', ');
}

interface Described {
  type: string;
  facts: [string, ReactNode][];
  may: string[];
  mayNot: string[];
}

/** "Ada Lovelace (ada@example.com)", the id beside it; the id alone while (or when) the API gives no name. */
function userFact(accountId: string, user: CurrentUser | undefined): ReactNode {
  const name = [user?.name, user?.last_name].filter(Boolean).join(' ');
  if (!name) return <code key="user">{accountId}</code>;
  return (
    <span key="user">
      {name}
      {user?.email ? ` (${user.email})` : ''}{' '}
      <span className="muted">
        <code>{accountId}</code>
      </span>
    </span>
  );
}

function describe(access: KnownAccess, user: CurrentUser | undefined): Described {
  switch (access.state) {
    case 'personal': {
      const all = access.organizations.map((o) => o.org);
      const admin = access.organizations.filter((o) => o.role === 'admin').map((o) => o.org);
      const member = access.organizations.filter((o) => o.role === 'member').map((o) => o.org);
      return {
        type: 'Personal key',
        facts: [
          ['User', userFact(access.accountId, user)],
          [
            'Reaches',
            access.organizationsLoading
              ? 'Your personal projects and those of your organizations (checking which…)'
              : access.organizationsFailure
                ? 'Your personal projects and those of your organizations (which ones could not be read)'
                : all.length
                  ? `Your personal projects and the projects of ${names(all)}`
                  : 'Your personal projects',
          ],
        ],
        may: [
          'Create and revoke your personal keys',
          ...(admin.length ? [`Create and revoke keys of ${names(admin)}, where you are an administrator (organization and project-scoped keys)`] : []),
          ...(member.length ? [`Create project-scoped keys for projects of ${names(member)}, where you are a member`] : []),
        ],
        mayNot: member.length ? [`See or revoke the keys of ${names(member)}: only its administrators can`] : [],
      };
    }
    case 'organization': {
      const org = orgName(access.org, access.orgId);
      return {
        type: 'Organization key',
        facts: [
          ['Organization', access.org ? `${access.org.name} (${access.orgId})` : <code key="org">{access.orgId}</code>],
          ['Reaches', `All projects of ${org}, as an administrator`],
        ],
        may: [`Create and revoke keys of ${org}, including project-scoped keys`],
        mayNot: ['List, create or revoke personal keys: those belong to a user and need that user’s personal key'],
      };
    }
    case 'project': {
      const org = orgName(access.org, access.orgId);
      return {
        type: 'Project-scoped key',
        facts: [
          ['Organization', access.org ? `${access.org.name} (${access.orgId})` : <code key="org">{access.orgId}</code>],
          [
            'Project',
            access.project ? (
              `${access.project.name} (${access.project.id})`
            ) : (
              <span key="none" className="muted">
                none reachable: its project may have left {org}
              </span>
            ),
          ],
          ['Reaches', 'Only that project, with member access'],
        ],
        may: ['Work with its one project: branches, computes and operations'],
        mayNot: ['List, create or revoke API keys', 'See other projects', 'Delete its project, create projects or change organization settings'],
      };
    }
    case 'unknown':
      return {
        type: `Unknown kind of credential (${access.authMethod})`,
        facts: [],
        may: [],
        mayNot: ['Manage API keys from this console: it cannot tell what this credential is allowed to do'],
      };
  }
}

/** What the key this console is signed in with is, what it reaches, and what it may do here. */
export function CurrentKeyPanel({ access }: { access: KnownAccess }) {
  const titleId = useId();
  const user = useQuery({ ...authQueries.me(), enabled: access.state === 'personal' });
  const { type, facts, may, mayNot } = describe(access, user.data);
  return (
    <section className="current-key" aria-labelledby={titleId}>
      <h2 id={titleId}>Signed in with: {type}</h2>
      <dl className="fields">
        {facts.map(([label, value]) => (
          <div key={label} className="fields__row">
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <div className="current-key__rights">
        {may.length > 0 && (
          <div>
            <h3>It may</h3>
            <ul>
              {may.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          </div>
        )}
        {mayNot.length > 0 && (
          <div>
            <h3>It may not</h3>
            <ul>
              {mayNot.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          </div>
        )}
      </div>
    </section>
  );
}
