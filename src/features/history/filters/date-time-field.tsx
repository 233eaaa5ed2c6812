import { useState } from 'react';
import { fromFieldValue, toFieldText } from '../../../lib/date-time-format';
import type { TimeZoneChoice } from '../../../lib/time-zone';
import type { EditSession } from './use-edit-session';
import { useTypedField } from './use-typed-field';

interface DateTimeFieldProps {
  id: string;
  value: string | undefined;
  zone: TimeZoneChoice;
  disabled: boolean;
  describedBy: string;
  session: EditSession;
  onChange: (value: string | undefined, options: { replace: boolean }) => void;
}

/**
 * One end of the time range. A browser reports each part of a date typed over a complete one (the year digit by
 * digit is four dates), so the filter follows once typing pauses, on Enter or on leaving the field, as the text
 * box does: one new filter and one re-render of the history per edit, not per key.
 */
export function DateTimeField({ id, value, zone, disabled, describedBy, session, onChange }: DateTimeFieldProps) {
  const fieldValue = toFieldText(value, zone);
  const [text, setText] = useState(fieldValue);
  const [shown, setShown] = useState(fieldValue);
  // The address (or the time zone) changed by itself: the field shows what it now says.
  if (shown !== fieldValue) {
    setShown(fieldValue);
    setText(fieldValue);
  }
  const { commitNow, inputProps } = useTypedField({
    session,
    onText: setText,
    commit: (next) => {
      const committed = fromFieldValue(next, zone);
      // Text that is no time yet (typing paused half-way) changes nothing; the field says it is not one.
      if (committed === undefined && next.trim() !== '') return;
      if (committed === value) return;
      onChange(committed, { replace: session.replace() });
    },
  });

  return (
    // Text, not `datetime-local`: that shows the browser's own format ("mm/dd/yyyy, --:-- --", 12-hour) beside the
    // page's "2026-09-02 23:53:30 UTC"; this field writes time the page's way, in the page's zone.
    <input
      id={id}
      type="text"
      placeholder="YYYY-MM-DD HH:MM"
      size={16}
      spellCheck={false}
      autoComplete="off"
      aria-invalid={text.trim() !== '' && fromFieldValue(text, zone) === undefined}
      value={text}
      disabled={disabled}
      {...inputProps}
      onKeyDown={(event) => {
        if (event.key === 'Enter') commitNow(event.currentTarget.value);
      }}
      aria-describedby={describedBy}
    />
  );
}
