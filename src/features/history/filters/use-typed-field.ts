import { useEffect, useRef, type ChangeEvent, type FocusEvent } from 'react';
import type { EditSession } from './use-edit-session';

/** How long typing pauses before the filter follows it. */
export const SEARCH_DEBOUNCE_MS = 300;

interface TypedFieldOptions {
  /** The field's edit session (use-edit-session.ts): its focus and blur begin and end one history entry. */
  session: EditSession;
  /** What the field now shows, at every key. */
  onText: (text: string) => void;
  /** The filter follows the text: once typing pauses, on leaving the field, or when the field asks (`commitNow`, on Enter). */
  commit: (text: string) => void;
}

/**
 * A filter field a person types into (the search box, the time range's ends): the field shows every key, the filter
 * follows once typing pauses for SEARCH_DEBOUNCE_MS or the field is left, so a word typed is one new filter and one
 * re-render of the history, not one per key.
 */
export function useTypedField({ session, onText, commit }: TypedFieldOptions) {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const commitNow = (text: string) => {
    clearTimeout(timer.current);
    commit(text);
  };
  return {
    commitNow,
    inputProps: {
      onFocus: session.onFocus,
      onBlur: (event: FocusEvent<HTMLInputElement>) => {
        commitNow(event.currentTarget.value);
        session.onBlur();
      },
      onChange: (event: ChangeEvent<HTMLInputElement>) => {
        const next = event.target.value;
        onText(next);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => commitNow(next), SEARCH_DEBOUNCE_MS);
      },
    },
  };
}
