import { useId, useState, type SyntheticEvent } from 'react';
import { describeProblem, isApiError } from '../../api/api-error';
import {
  EVENT_LABELS,
  EVENT_TYPES,
  type CreatedWebhook,
  type NotificationEventType,
  type WebhookFormat,
  type WebhookScope,
} from '../../api/notification-schemas';
import { useCreateWebhook } from '../../api/notifications';

type ScopeKind = WebhookScope['kind'];

function scopeOf(kind: ScopeKind, id: string): WebhookScope {
  if (kind === 'organization') return { kind, orgId: id.trim() };
  if (kind === 'project') return { kind, projectId: id.trim() };
  return { kind: 'all' };
}

/** A webhook URL, its format, which projects, which events: "Add webhook". Errors (a bad URL, a private address) show on the form. */
export function WebhookForm({ onCreated }: { onCreated: (created: CreatedWebhook) => void }) {
  const create = useCreateWebhook();
  const urlId = useId();
  const urlErrorId = useId();
  const formatId = useId();
  const scopeId = useId();
  const scopeTargetId = useId();
  const [url, setUrl] = useState('');
  const [format, setFormat] = useState<WebhookFormat>('json');
  const [scopeKind, setScopeKind] = useState<ScopeKind>('all');
  const [target, setTarget] = useState('');
  const [events, setEvents] = useState<NotificationEventType[]>(['operation.failed']);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const missing =
      url.trim() === ''
        ? 'Enter the URL that receives the events.'
        : events.length === 0
          ? 'Choose at least one event.'
          : scopeKind !== 'all' && target.trim() === ''
            ? `Enter the ${scopeKind === 'organization' ? 'organization' : 'project'} ID.`
            : null;
    setProblem(missing);
    if (missing !== null) return;
    create.mutate(
      { url: url.trim(), format, scope: scopeOf(scopeKind, target), events },
      {
        onSuccess: (created) => {
          setUrl('');
          onCreated(created);
        },
        onError: (error) => setProblem(isApiError(error) && error.kind === 'http' ? error.message : describeProblem(error)),
      },
    );
  };

  const toggle = (type: NotificationEventType, on: boolean) => setEvents((list) => (on ? [...list, type] : list.filter((t) => t !== type)));

  return (
    <form className="webhook-form" onSubmit={submit} noValidate aria-label="New webhook">
      <div className="field webhook-form__url">
        <label htmlFor={urlId}>Webhook URL</label>
        <input
          id={urlId}
          type="url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://hooks.example.com/ops"
          aria-invalid={problem !== null || undefined}
          aria-describedby={problem === null ? undefined : urlErrorId}
        />
      </div>
      <div className="field">
        <label htmlFor={formatId}>Format</label>
        <select id={formatId} value={format} onChange={(e) => setFormat(e.target.value === 'slack' ? 'slack' : 'json')}>
          <option value="json">JSON (signed event)</option>
          <option value="slack">Slack incoming webhook</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={scopeId}>Projects</label>
        <select
          id={scopeId}
          value={scopeKind}
          onChange={(e) => setScopeKind(e.target.value === 'organization' ? 'organization' : e.target.value === 'project' ? 'project' : 'all')}
        >
          <option value="all">Every archived project</option>
          <option value="organization">One organization</option>
          <option value="project">One project</option>
        </select>
      </div>
      {scopeKind !== 'all' && (
        <div className="field">
          <label htmlFor={scopeTargetId}>{scopeKind === 'organization' ? 'Organization ID' : 'Project ID'}</label>
          <input id={scopeTargetId} value={target} onChange={(e) => setTarget(e.target.value)} />
        </div>
      )}
      <fieldset className="webhook-form__events">
        <legend>Events</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type} className="checkbox">
            <input type="checkbox" checked={events.includes(type)} onChange={(e) => toggle(type, e.target.checked)} /> {EVENT_LABELS[type]}
          </label>
        ))}
      </fieldset>
      {problem !== null && (
        <p id={urlErrorId} role="alert" className="field__error webhook-form__problem">
          {problem}
        </p>
      )}
      <div className="webhook-form__submit">
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add webhook'}
        </button>
      </div>
    </form>
  );
}
