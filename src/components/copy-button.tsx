import { useEffect, useId, useState } from 'react';

/** How long "Copied" stays beside the button. */
const COPIED_MS = 4_000;

/**
 * Copies `text` to the clipboard and says so. Where the browser refuses (no clipboard permission, an
 * insecure origin), shows the text selected in a box instead, for the person to copy by hand.
 */
export function CopyButton({ label, text }: { label: string; text: string }) {
  const id = useId();
  const [state, setState] = useState<'idle' | 'copied' | 'manual'>('idle');
  useEffect(() => {
    if (state !== 'copied') return;
    const timer = setTimeout(() => setState('idle'), COPIED_MS);
    return () => clearTimeout(timer);
  }, [state]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('manual');
    }
  };

  return (
    <span className="copy-button">
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className="muted small">
        {state === 'copied' ? ' Copied.' : ''}
      </span>
      {state === 'manual' && (
        <span className="copy-button__manual">
          <label htmlFor={id}>Copy this by hand:</label>
          <textarea id={id} readOnly rows={3} value={text} onFocus={(event) => event.currentTarget.select()} autoFocus />
        </span>
      )}
    </span>
  );
}
