import { useId } from 'react';
import { CopyButton } from '../../components/copy-button';

/** The new webhook's secret, shown this once: the server keeps it only sealed and never sends it again. */
export function SigningSecret({ secret, url, onDone }: { secret: string; url: string; onDone: () => void }) {
  const id = useId();
  return (
    <section className="callout signing-secret" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Webhook added</h2>
      <p>
        Events to <code>{url}</code> are signed with this secret as Standard Webhooks sign them: a receiver verifies the <code>webhook-signature</code> header
        with any Standard Webhooks or Svix library. Copy it now: it is not shown again.
      </p>
      <div className="field">
        <label htmlFor={id}>Signing secret</label>
        <div className="secret-dialog__secret">
          <input id={id} readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
          <CopyButton label="Copy secret" text={secret} />
        </div>
      </div>
      <p>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </p>
    </section>
  );
}
