import { useInfiniteQuery } from '@tanstack/react-query';
import { isDoneUnread } from '../../api/api-error';
import { useId, useState, type SyntheticEvent } from 'react';
import { KEY_NAME_MAX_LENGTH, useCreateApiKey, validateKeyName, type KeyOwner } from '../../api/api-keys';
import { loadFailure } from '../../api/load-failure';
import { projectQueries } from '../../api/projects';
import type { ApiKeyCreated } from '../../api/schemas';
import { ErrorCallout } from '../../components/error-callout';
import { retryCountdown } from '../../lib/format';
import { useNow } from '../../lib/use-now';
import { explainRefusal, type Explanation, type SessionKeyKind } from './refusal';

/** Somewhere the signed-in key may create keys. */
export interface KeyTarget {
  id: string;
  owner: KeyOwner;
  /** Shown in the "Key for" choice. */
  label: string;
  /** Organization name, for messages. */
  orgName?: string | undefined;
  /** A member (not admin) may only create project-scoped keys. */
  projectScopedOnly: boolean;
}

interface CreateKeyFormProps {
  targets: readonly KeyTarget[];
  sessionKind: SessionKeyKind;
  onCreated: (created: ApiKeyCreated, target: KeyTarget) => void;
}

function ProjectField({ target, value, onChange, invalid }: { target: KeyTarget; value: string; onChange: (id: string) => void; invalid: boolean }) {
  const id = useId();
  const hintId = useId();
  const orgId = target.owner.kind === 'organization' ? target.owner.orgId : undefined;
  const projectsOptions = projectQueries.list(orgId);
  const projects = useInfiniteQuery({ ...projectsOptions, enabled: orgId !== undefined });
  const loaded = projects.data?.pages.flatMap((p) => p.projects) ?? [];
  // A first read that fails says why at once, and when the console tries again, instead of "Loading" meanwhile.
  const failure = loadFailure(projects, projectsOptions.queryKey);
  const now = useNow(1_000, failure?.nextTry != null);
  return (
    <div className="field">
      <label htmlFor={id}>{target.projectScopedOnly ? 'Project' : 'Project (optional)'}</label>
      <select
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={projects.isPending}
        aria-describedby={hintId}
        aria-invalid={invalid || undefined}
      >
        {target.projectScopedOnly ? <option value="">Choose a project</option> : <option value="">None: the whole organization</option>}
        {loaded.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name} ({p.id})
          </option>
        ))}
      </select>
      <p id={hintId} className="muted small">
        {failure
          ? `The projects could not be loaded (${failure.message}), so no project can be chosen${failure.nextTry ? `; ${retryCountdown(failure.nextTry, now)}` : ''}.`
          : projects.isPending
            ? 'Loading projects…'
            : target.projectScopedOnly
              ? 'As a member, you can create project-scoped keys: they reach only the chosen project.'
              : 'Choosing a project makes the key project-scoped: it reaches only that project.'}
      </p>
      {failure && failure.nextTry === null && (
        <button type="button" onClick={() => void projects.refetch()} disabled={projects.isFetching}>
          Retry loading projects
        </button>
      )}
      {projects.hasNextPage && (
        <button type="button" onClick={() => void projects.fetchNextPage()} disabled={projects.isFetchingNextPage}>
          Load more projects
        </button>
      )}
    </div>
  );
}

/** One form for every kind of key this session may create: a name, whose key, and optionally a project. */
export function CreateKeyForm({ targets, sessionKind, onCreated }: CreateKeyFormProps) {
  const titleId = useId();
  const nameId = useId();
  const nameHintId = useId();
  const nameErrorId = useId();
  const targetFieldId = useId();
  const [name, setName] = useState('');
  const [targetId, setTargetId] = useState(targets[0]?.id ?? '');
  const [projectId, setProjectId] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  const [projectError, setProjectError] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<(Explanation & { done?: boolean }) | null>(null);
  const { create, isPending } = useCreateApiKey();

  const target = targets.find((t) => t.id === targetId) ?? targets[0];
  if (!target) return null;

  async function submit(event: SyntheticEvent, chosen: KeyTarget) {
    event.preventDefault();
    const invalidName = validateKeyName(name);
    const missingProject =
      chosen.projectScopedOnly && projectId === '' ? 'Choose a project: as a member of this organization you can only create project-scoped keys.' : null;
    setNameError(invalidName);
    setProjectError(missingProject);
    setRefusal(null);
    if (invalidName || missingProject) return;
    const scopedTo = chosen.owner.kind === 'organization' && projectId !== '' ? projectId : undefined;
    try {
      const created = await create({ owner: chosen.owner, name, projectId: scopedTo });
      setName('');
      setProjectId('');
      onCreated(created, chosen);
    } catch (error) {
      if (isDoneUnread(error)) {
        // The key exists but its secret is lost: say so, so it is revoked rather than created twice.
        setName('');
        setRefusal({
          reason: `The key “${name}” was created, but the API's answer could not be read, so its secret cannot be shown. The list is being refreshed: revoke that key and create another.`,
          requestId: error.requestId,
          done: true,
        });
        return;
      }
      const owner =
        chosen.owner.kind === 'personal' ? { kind: 'personal' as const } : { kind: 'organization' as const, name: chosen.orgName ?? chosen.owner.orgId };
      setRefusal(explainRefusal(error, scopedTo ? 'create-project-scoped' : 'create', owner, sessionKind));
    }
  }

  return (
    <section className="create-key" aria-labelledby={titleId}>
      <h2 id={titleId}>Create a key</h2>
      <form onSubmit={(e) => void submit(e, target)} noValidate>
        <div className="field">
          <label htmlFor={nameId}>Name</label>
          <input
            id={nameId}
            name="key-name"
            type="text"
            autoComplete="off"
            spellCheck={false}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? `${nameErrorId} ${nameHintId}` : nameHintId}
          />
          <p id={nameHintId} className="muted small">
            1 to {KEY_NAME_MAX_LENGTH} characters, to tell keys apart (for example “ci-deploy”).
          </p>
          {nameError && (
            <p id={nameErrorId} className="field__error" role="alert">
              {nameError}
            </p>
          )}
        </div>
        {targets.length > 1 && (
          <div className="field">
            <label htmlFor={targetFieldId}>Key for</label>
            <select
              id={targetFieldId}
              value={target.id}
              onChange={(e) => {
                setTargetId(e.target.value);
                setProjectId('');
                setProjectError(null);
              }}
            >
              {targets.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.label}
                </option>
              ))}
            </select>
          </div>
        )}
        {target.owner.kind === 'organization' && (
          <ProjectField key={target.id} target={target} value={projectId} onChange={setProjectId} invalid={projectError !== null} />
        )}
        {projectError && (
          <p className="field__error" role="alert">
            {projectError}
          </p>
        )}
        <div className="create-key__submit">
          <button type="submit" className="primary" disabled={isPending}>
            Create
          </button>
          <span role="status" className="muted">
            {isPending ? 'Creating the key…' : ''}
          </span>
        </div>
      </form>
      {refusal && (
        <ErrorCallout
          title={refusal.done ? 'The key was created, but its details could not be read.' : 'The key was not created.'}
          message={refusal.reason}
          requestId={refusal.requestId}
        >
          {refusal.apiMessage && <p className="muted">The API said: {refusal.apiMessage}</p>}
        </ErrorCallout>
      )}
    </section>
  );
}
