import { hashKey, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { describeError } from '../../api/api-error';
import { archiveQueries } from '../../api/archive';
import { authQueries, keyKindOf } from '../../api/auth';
import { loadFailure } from '../../api/load-failure';
import { projectQueries } from '../../api/projects';
import type { Project } from '../../api/schemas';
import { ErrorCallout } from '../../components/error-callout';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { RelativeTime } from '../../components/relative-time';
import { TableHead } from '../../components/table-head';
import { TableSkeleton } from '../../components/table-skeleton';
import { paths } from '../../config/paths';
import { formatSeconds } from '../../lib/format';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useNow } from '../../lib/use-now';
import { ArchiveFigures } from './archive-figures';

/** Operations: the archive's figures of each project a kept key reaches, beside its name; there from the first paint, so nothing moves sideways when they arrive. */
const COLUMNS = ['Name', 'Operations', 'ID', 'Region', 'Postgres', 'Compute used', 'Created'] as const;

function matches(project: Project, term: string): boolean {
  const t = term.trim().toLowerCase();
  return t === '' || project.name.toLowerCase().includes(t) || project.id.toLowerCase().includes(t);
}

/** The switcher's room, kept while it is not yet known whether it shows, so the table below does not jump when it arrives. */
function OrganizationPlaceholder() {
  return (
    <p className="reserved" aria-hidden="true">
      <label>Organization</label>{' '}
      <select disabled tabIndex={-1}>
        <option>Personal projects</option>
      </select>
    </p>
  );
}

function OrganizationSwitcher({ orgId, onChange }: { orgId: string | undefined; onChange: (orgId: string | undefined) => void }) {
  const id = useId();
  const organizations = useQuery(authQueries.organizations());
  if (organizations.isPending) return <OrganizationPlaceholder />;
  if (!organizations.data?.length) return null;
  return (
    <p>
      <label htmlFor={id}>Organization</label>{' '}
      <select id={id} value={orgId ?? ''} onChange={(e) => onChange(e.target.value || undefined)}>
        <option value="">Personal projects</option>
        {organizations.data.map((org) => (
          <option key={org.id} value={org.id}>
            {org.name}
          </option>
        ))}
      </select>
    </p>
  );
}

export function ProjectsScreen() {
  useDocumentTitle('Projects');
  const searchId = useId();
  const [params, setParams] = useSearchParams();
  const orgId = params.get('org') ?? undefined;
  const [term, setTerm] = useState('');
  const now = useNow(30_000);
  const auth = useQuery(authQueries.details());
  const projectsOptions = projectQueries.list(orgId);
  const projects = useInfiniteQuery(projectsOptions);
  const projectsFailure = loadFailure(projects, projectsOptions.queryKey);

  const loaded = useMemo(() => projects.data?.pages.flatMap((p) => p.projects) ?? [], [projects.data]);
  const shown = useMemo(() => loaded.filter((p) => matches(p, term)), [loaded, term]);
  const isPersonal = auth.data ? keyKindOf(auth.data) === 'personal' : false;
  // One request to the console's own archive for the whole list (no API request): shown once a kept key reaches a project.
  const archived = useQuery(archiveQueries.projects());
  const figures = useMemo(() => new Map(archived.data?.projects.map((p) => [p.id, p])), [archived.data]);

  return (
    <section>
      <h1 tabIndex={-1}>Projects</h1>
      {auth.isPending && <OrganizationPlaceholder />}
      {isPersonal && <OrganizationSwitcher orgId={orgId} onChange={(next) => setParams(next ? { org: next } : {}, { replace: false })} />}
      <p className="toolbar">
        <label htmlFor={searchId}>Search projects</label>{' '}
        <input id={searchId} type="search" value={term} onChange={(e) => setTerm(e.target.value)} placeholder="Name or id" />
        {projects.hasNextPage && <span className="muted"> Searching the {loaded.length} projects loaded so far.</span>}
      </p>

      {projectsFailure ? (
        <LoadFailureCallout title="Could not load projects." failure={projectsFailure} onRetry={() => void projects.refetch()} fetching={projects.isFetching} />
      ) : projects.isPending ? (
        <TableSkeleton columns={COLUMNS} rows={5} label="Loading projects…" />
      ) : loaded.length === 0 ? (
        <p className="empty">{orgId ? 'This organization has no projects yet.' : 'No projects yet.'}</p>
      ) : (
        <>
          <div className="table-wrap">
            <table className="data-table projects-table">
              <caption className="visually-hidden">
                Projects{term ? `, filtered by “${term}”` : ''}: {shown.length} shown
              </caption>
              <TableHead columns={COLUMNS} />
              <tbody>
                {shown.map((project) => (
                  <tr key={project.id}>
                    <th scope="row" data-label="Name">
                      <Link to={paths.project(project.id)} className="truncate" title={project.name}>
                        {project.name}
                      </Link>
                      {project.locked && <span className="tag"> Locked</span>}
                    </th>
                    <td data-label="Operations" className="projects-table__operations">
                      {archived.isPending ? (
                        <span className="skeleton-bar" aria-hidden="true" />
                      ) : (
                        <ArchiveFigures figures={figures.get(project.id)} now={now} />
                      )}
                    </td>
                    <td data-label="ID">
                      <code>{project.id}</code>
                    </td>
                    <td data-label="Region">{project.region_id}</td>
                    <td data-label="Postgres">{project.pg_version}</td>
                    <td data-label="Compute used">{formatSeconds(project.cpu_used_sec)}</td>
                    <td data-label="Created">
                      <RelativeTime iso={project.created_at} now={now} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {shown.length === 0 && <p className="empty">No loaded project matches “{term}”.</p>}
          {projects.hasNextPage && (
            <button type="button" onClick={() => void projects.fetchNextPage()} disabled={projects.isFetchingNextPage}>
              {projects.isFetchingNextPage ? 'Loading more projects…' : 'Load more projects'}
            </button>
          )}
          {projects.isFetchNextPageError && (
            <ErrorCallout
              title="Could not load more projects."
              {...describeError(projects.error)}
              faultId={hashKey(projectsOptions.queryKey)}
              onRetry={() => void projects.fetchNextPage()}
            />
          )}
        </>
      )}
    </section>
  );
}
