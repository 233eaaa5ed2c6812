import { useEffect, useRef, useState } from 'react';
import { fromFieldValue, toFieldValue } from '../../../lib/date-time-format';
import type { TimeZoneChoice } from '../../../lib/time-zone';
import { SEARCH_DEBOUNCE_MS } from './search-field';

interface DateTimeFieldProps {
  id: string;
  value: string | undefined;
  zone: TimeZoneChoice;
  disabled: boolean;
  describedBy: string;
  session: { replace: () => boolean; onFocus: () => void; onBlur: () => void };
  onChange: (value: string | undefined, options: { replace: boolean }) => void;
}

/**
 * One end of the time range. A browser reports each part of a date typed over a complete one (the year digit by
 * digit is four dates), so the filter follows once typing pauses, on Enter or on leaving the field, as the text
 * box does: one new filter and one re-render of the history per edit, not per key.
 */
export function DateTimeField({ id, value, zone, disabled, describedBy, session, onChange }: DateTimeFieldProps) {
  const fieldValue = toFieldValue(value, zone);
  const [text, setText] = useState(fieldValue);
  const [shown, setShown] = useState(fieldValue);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // The address (or the time zone) changed by itself: the field shows what it now says.
  if (shown !== fieldValue) {
    setShown(fieldValue);
    setText(fieldValue);
  }
  useEffect(() => () => clearTimeout(timer.current), []);

  const commit = (next: string) => {
    clearTimeout(timer.current);
    const committed = fromFieldValue(next, zone);
    if (committed === value) return;
    onChange(committed, { replace: session.replace() });
  };

  return (
    <input
      id={id}
      type="datetime-local"
      value={text}
      disabled={disabled}
      onFocus={session.onFocus}
      onBlur={(event) => {
        commit(event.currentTarget.value);
        session.onBlur();
      }}
      onChange={(event) => {
        const next = event.target.value;
        setText(next);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => commit(next), SEARCH_DEBOUNCE_MS);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Enter') commit(event.currentTarget.value);
      }}
      aria-describedby={describedBy}
    />
  );
}
