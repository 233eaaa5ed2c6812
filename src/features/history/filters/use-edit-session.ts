import { useCallback, useRef } from 'react';

export interface EditSession {
  /** Whether this change replaces the history entry the edit's first change made. */
  replace: () => boolean;
  onFocus: () => void;
  onBlur: () => void;
}

/**
 * For a field a person edits in several steps (typing, a date's parts): the first change after it
 * gains focus makes a new history entry, later ones replace it until it loses focus, so Back undoes
 * the whole edit at once rather than one keystroke.
 */
export function useEditSession(): EditSession {
  const editing = useRef(false);
  const replace = useCallback(() => {
    const again = editing.current;
    editing.current = true;
    return again;
  }, []);
  const onFocus = useCallback(() => {
    editing.current = false;
  }, []);
  return { replace, onFocus, onBlur: onFocus };
}
