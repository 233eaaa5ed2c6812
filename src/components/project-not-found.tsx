import { Link } from 'react-router-dom';

/** A project the API does not know (or the session's key cannot see): one page saying so, with the way back. */
export function ProjectNotFound({ projectId, back }: { projectId: string; back: { to: string; label: string } }) {
  return (
    <section>
      <h1 tabIndex={-1}>Project not found</h1>
      <p>
        There is no project <code>{projectId}</code>, or it is outside what this API key can see.
      </p>
      <p>
        <Link to={back.to}>{back.label}</Link>
      </p>
    </section>
  );
}
