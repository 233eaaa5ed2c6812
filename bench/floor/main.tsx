// The floor of this stack, for the first-row bench: the least a React app built on the console's
// libraries (React DOM, React Query, the router, zod/mini) does to show the same first page of
// operations: read the key, fetch and parse one page, render the table with the console's CSS and
// markup. No shell, no polling, no other screens. Whatever the console costs beyond this is its own.
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Link } from 'react-router-dom';
import { OperationsPageSchema } from '../../src/api/schemas';
import { formatDuration, formatRelative, humanizeAction } from '../../src/lib/format';
import { isTerminal, statusLabel, statusTone } from '../../src/model/operation-status';
import '../../src/styles.css';

const projectId = new URLSearchParams(window.location.search).get('project') ?? '';

async function firstPage() {
  // Same origin, so the console server's session cookie goes along and the server adds the key, as for the console.
  const response = await fetch(`/api/v2/projects/${encodeURIComponent(projectId)}/operations?limit=100`, { headers: { Accept: 'application/json' } });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return OperationsPageSchema.parse(await response.json());
}

function Table() {
  const page = useQuery({ queryKey: ['operations', projectId], queryFn: firstPage });
  const now = Date.now();
  if (!page.data) return <p>{page.isError ? 'Could not load.' : 'Loading…'}</p>;
  return (
    <div className="table-wrap">
      <table className="data-table">
        <thead>
          <tr>
            {['Operation', 'Branch', 'Compute', 'Status', 'Duration', 'Date'].map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {page.data.operations.map((op) => (
            <tr key={op.id}>
              <th scope="row">
                <Link to={`/projects/${encodeURIComponent(projectId)}/operations/${encodeURIComponent(op.id)}`}>{humanizeAction(op.action)}</Link>
              </th>
              <td>{op.branch_id ?? '—'}</td>
              <td>{op.endpoint_id ?? '—'}</td>
              <td>
                <span className={`status status--${statusTone(op.status)}`}>{statusLabel(op.status)}</span>
              </td>
              <td>{isTerminal(op.status) ? formatDuration(op.total_duration_ms) : '—'}</td>
              <td>{formatRelative(op.created_at, now)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={new QueryClient()}>
        <BrowserRouter>
          <main>
            <h1>{projectId}</h1>
            <Table />
          </main>
        </BrowserRouter>
      </QueryClientProvider>
    </StrictMode>,
  );
}
