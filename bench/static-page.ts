// The floor the console is compared with (docs/benchmarks.md): the same first page of operations as a plain HTML
// table with a small inline <style>, no stylesheet request and no script at all, served by a bare node:http.
import type { Branch, Endpoint, Operation } from '../src/api/schemas';
import { formatDuration, formatRelative, formatUtc, humanizeAction } from '../src/lib/format';
import { isTerminal, statusLabel, statusTone } from '../src/model/operation-status';

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export interface StaticPageInput {
  project: { id: string; name: string };
  operations: readonly Operation[];
  branches: readonly Branch[];
  endpoints: readonly Endpoint[];
  now: number;
}

/** The page's one inline <style> (its CSP allows it by hash when served with the console's headers). */
export const STATIC_PAGE_STYLE = `body{margin:0;font:14px/1.4 system-ui,sans-serif}header{padding:12px 24px;border-bottom:1px solid #ddd}main{padding:16px 24px}table{border-collapse:collapse;width:100%}th,td{padding:6px 8px;border-bottom:1px solid #eee;text-align:left}.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}`;

export function staticOperationsPage({ project, operations, branches, endpoints, now }: StaticPageInput): string {
  const branchNames = new Map(branches.map((b) => [b.id, b.name]));
  const computeNames = new Map(endpoints.map((e) => [e.id, e.name ?? e.id]));
  const projectHref = `/projects/${encodeURIComponent(project.id)}`;
  const rows = operations.map((op) => {
    const tone = statusTone(op.status);
    const duration = isTerminal(op.status) ? formatDuration(op.total_duration_ms) : '—';
    const branch = op.branch_id ? (branchNames.get(op.branch_id) ?? op.branch_id) : '—';
    const compute = op.endpoint_id ? (computeNames.get(op.endpoint_id) ?? op.endpoint_id) : '—';
    return [
      '<tr>',
      `<th scope="row"><a href="${esc(`${projectHref}/operations/${encodeURIComponent(op.id)}`)}">${esc(humanizeAction(op.action))}</a></th>`,
      `<td>${esc(branch)}</td>`,
      `<td>${esc(compute)}</td>`,
      `<td><span class="status status--${tone}" data-status="${esc(op.status)}">${esc(statusLabel(op.status))}</span></td>`,
      `<td>${esc(duration)}</td>`,
      `<td><time class="reltime" datetime="${esc(op.created_at)}" title="${esc(formatUtc(op.created_at))}">${esc(formatRelative(op.created_at, now))}</time></td>`,
      '</tr>',
    ].join('');
  });
  const header = ['Operation', 'Branch', 'Compute', 'Status', 'Duration', 'Date'].map((c) => `<th scope="col">${c}</th>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="UTF-8" />
<meta name="viewport" content="width=device-width, initial-scale=1.0" />
<meta name="color-scheme" content="light dark" />
<title>${esc(project.name)} · Ops Console (static bench page)</title>
<style>${STATIC_PAGE_STYLE}</style>
</head>
<body>
<div id="root"><div class="app">
<a class="skip-link" href="#main">Skip to content</a>
<header class="topbar"><a class="brand" href="/">Ops Console</a><nav aria-label="Main"><a href="/">Projects</a> <a href="/settings/api-keys">API keys</a></nav></header>
<div class="notices" role="status" aria-live="polite"></div>
<main id="main" tabindex="-1"><section>
<p class="breadcrumbs"><a href="/">Projects</a> <span aria-hidden="true">/</span> ${esc(project.name)}</p>
<h1 tabindex="-1">${esc(project.name)}</h1>
<div class="toolbar"><h2>Operations</h2></div>
<div class="table-wrap"><table class="data-table"><caption class="visually-hidden">Operations, newest first</caption>
<thead><tr>${header}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table></div>
</section></main>
</div></div>
</body>
</html>
`;
}
