import { useEffect, useRef } from 'react';

/** Whether a key pressed here is typing: a text field, a select, an editable element, or an open dialog's own keys. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file'].includes(target.type);
  return false;
}

/** Keys by what they type (`event.key`: "/", "j", "?"), each with what it does. */
export type ShortcutMap = Readonly<Record<string, (event: KeyboardEvent) => void>>;

/**
 * Single-key shortcuts on the whole page while mounted: never while typing in a field, never with
 * Ctrl, Alt or Meta held (those belong to the browser), never while a modal dialog is open.
 */
export function useShortcuts(shortcuts: ShortcutMap, enabled = true): void {
  const current = useRef(shortcuts);
  useEffect(() => {
    current.current = shortcuts;
  });
  useEffect(() => {
    if (!enabled) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.altKey || event.metaKey || event.isComposing) return;
      if (isTypingTarget(event.target) || document.querySelector('dialog[open]')) return;
      const run = current.current[event.key];
      if (!run) return;
      event.preventDefault();
      run(event);
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [enabled]);
}
