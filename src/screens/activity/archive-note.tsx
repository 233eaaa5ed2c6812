import { Link } from 'react-router-dom';
import type { ArchiveActivity } from '../../api/archive-schemas';
import { paths } from '../../config/paths';

/** Which projects the view reads from the history archive (no API request spent on them), and which from the API. */
export function ArchiveNote({ archive, coversAll, total }: { archive: ArchiveActivity | undefined; coversAll: boolean; total: number }) {
  const projects = archive?.projects ?? [];
  if (projects.length === 0) return null;
  const fromApi = Math.max(0, total - projects.length);
  return (
    <p className="muted activity__archive" role="note">
      From the <Link to={paths.archive()}>history archive</Link> (no API request spent on {projects.length === 1 ? 'it' : 'them'}):{' '}
      {projects.map((p) => p.name).join(', ')}.{' '}
      {coversAll
        ? 'The archive covers every project this key reaches: this view sends no request to the API.'
        : fromApi > 0
          ? `The other ${fromApi === 1 ? 'project is' : `${fromApi} projects are`} read from the API within the budget.`
          : ''}
    </p>
  );
}
