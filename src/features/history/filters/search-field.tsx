import { useId, useState, type Ref } from 'react';
import { TEXT_RULE } from '../../../model/filter-fields';
import { useEditSession } from './use-edit-session';
import { useTypedField } from './use-typed-field';

interface SearchFieldProps {
  value: string | undefined;
  onChange: (value: string | undefined, options: { replace: boolean }) => void;
  inputRef?: Ref<HTMLInputElement>;
}

/** The text box: matches an operation id or action (src/model/filter-fields.ts, TEXT_RULE). `/` focuses it; Escape leaves it (its text stays). */
export function SearchField({ value, onChange, inputRef }: SearchFieldProps) {
  const id = useId();
  const [text, setText] = useState(value ?? '');
  const [shown, setShown] = useState(value);
  const [sent, setSent] = useState(value);
  const session = useEditSession();
  // The address changed by itself (Back, a link), not by this box: the box shows what it now says.
  if (shown !== value) {
    setShown(value);
    if (value !== sent) {
      setSent(value);
      setText(value ?? '');
    }
  }
  const { commitNow, inputProps } = useTypedField({
    session,
    onText: setText,
    commit: (next) => {
      const trimmed = next.trim() || undefined;
      if (trimmed === value) return;
      setSent(trimmed);
      onChange(trimmed, { replace: session.replace() });
    },
  });

  return (
    <div className="filter-field search-field">
      <label htmlFor={id}>Search</label>
      <input
        id={id}
        ref={inputRef}
        type="search"
        name="q"
        value={text}
        placeholder="Operation id or action"
        autoComplete="off"
        spellCheck={false}
        aria-describedby={`${id}-hint`}
        {...inputProps}
        onKeyDown={(event) => {
          if (event.key === 'Enter') commitNow(event.currentTarget.value);
          if (event.key === 'Escape') {
            // Not the browser's clearing of a search box: Escape leaves the field, so the shortcuts work again.
            event.preventDefault();
            commitNow(event.currentTarget.value);
            event.currentTarget.blur();
          }
        }}
      />
      <span id={`${id}-hint`} className="visually-hidden">
        {TEXT_RULE} Press slash to come back here, Escape to leave.
      </span>
    </div>
  );
}
