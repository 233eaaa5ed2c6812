import { useEffect, useId, useState } from 'react';

/** How long "Copied" stays beside the button. */
const COPIED_MS = 4_000;

/**
 * Copies `text` to the clipboard and says so. `text` may be a function, read at the click: what it
 * builds from the browser (the page's origin) then never runs while the server renders the button. Where the browser refuses (no clipboard permission, an
 * insecure origin), shows the text selected in a box instead, for the person to copy by hand.
 */
export function CopyButton({ label, text }: { label: string; text: string | (() => string) }) {
  const id = useId();
  const [state, setState] = useState<'idle' | 'copied' | 'manual'>('idle');
  const [copiedText, setCopiedText] = useState('');
  useEffect(() => {
    if (state !== 'copied') return;
    const timer = setTimeout(() => setState('idle'), COPIED_MS);
    return () => clearTimeout(timer);
  }, [state]);

  const copy = async () => {
    const value = typeof text === 'function' ? text() : text;
    setCopiedText(value);
    try {
      await navigator.clipboard.writeText(value);
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
          <textarea id={id} readOnly rows={3} value={copiedText} onFocus={(event) => event.currentTarget.select()} autoFocus />
        </span>
      )}
    </span>
  );
}
