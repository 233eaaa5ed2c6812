import { useId } from 'react';
import { CopyButton } from '../../components/copy-button';

/** The new webhook's secret, shown this once: the server keeps it only sealed and never sends it again. */
export function SigningSecret({ secret, url, onDone }: { secret: string; url: string; onDone: () => void }) {
  const id = useId();
  return (
    <section className="callout" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Webhook added</h2>
      <p>
        Events to <code>{url}</code> are signed with this secret. Copy it now: it is not shown again.
      </p>
      <div className="field">
        <label htmlFor={id}>Signing secret</label>
        <input id={id} readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
      </div>
      <CopyButton label="Copy secret" text={secret} />
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
