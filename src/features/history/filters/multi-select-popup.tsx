import { useEffect, useId, useRef, useState, type FocusEvent, type KeyboardEvent } from 'react';
import { findChoices, moved, summaryOf, toggled, typedAhead, type Choice, type Move } from './choice-list';

interface MultiSelectPopupProps {
  /** The element naming the control ("Status"): the list's name, and the start of the button's. */
  labelId: string;
  /** The button's id (the chips give focus back to it). */
  buttonId: string;
  choices: readonly Choice[];
  onChange: (values: string[]) => void;
  /** A text box above the list that narrows it (Action's 33 and more). */
  findable: boolean;
}

const MOVES: Readonly<Record<string, Move>> = { ArrowDown: 'next', ArrowUp: 'previous', Home: 'first', End: 'last' };
/** Letters typed further apart than this start a new type-ahead. */
const TYPE_AHEAD_MS = 600;

const isPrintable = (event: KeyboardEvent) => event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey;

/**
 * A button that opens a list of choices, several at a time, each chosen by a plain click or by Space
 * (WAI-ARIA APG: a listbox with `aria-multiselectable`, focus shown by `aria-activedescendant`). The
 * choices come from the address and each toggle goes straight back to it; the popup only holds which
 * choice is active and what was typed. Arrows, Home and End move; Space or Enter toggles; a letter
 * jumps to the labels starting with it; Escape closes and gives focus back to the button; Tab leaves.
 * Findable: the text box narrows the list as a person types; Space there types a space until an arrow
 * key has moved into the list.
 */
export function MultiSelectPopup({ labelId, buttonId, choices, onChange, findable }: MultiSelectPopupProps) {
  const id = useId();
  const listId = `${id}-list`;
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState<string | undefined>(undefined);
  const [query, setQuery] = useState('');
  // In the text box: whether the keys now move through the list (an arrow was pressed) or type.
  const [navigating, setNavigating] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const find = useRef<HTMLInputElement>(null);
  const popup = useRef<HTMLDivElement>(null);
  const pointer = useRef('mouse');
  const focusOnOpen = useRef<'list' | 'find' | null>(null);
  const typed = useRef({ text: '', at: -Infinity });

  const shown = findable ? findChoices(choices, query) : choices;
  const activeIndex = shown.findIndex((choice) => choice.value === active);
  const optionId = (value: string) => `${id}-option-${choices.findIndex((choice) => choice.value === value)}`;
  const activeId = activeIndex >= 0 && active !== undefined ? optionId(active) : undefined;

  useEffect(() => {
    if (!open) return;
    const target = focusOnOpen.current === 'find' ? find.current : focusOnOpen.current === 'list' ? list.current : null;
    focusOnOpen.current = null;
    target?.focus();
  }, [open]);
  useEffect(() => {
    if (activeId === undefined) return;
    const option = document.getElementById(activeId);
    // jsdom has no scrolling.
    if (option && 'scrollIntoView' in option) option.scrollIntoView({ block: 'nearest' });
  }, [activeId]);

  const openPopup = (how: 'keyboard' | 'pointer', at: 'chosen' | 'last' = 'chosen') => {
    const first = choices.find((choice) => choice.selected) ?? choices[0];
    setActive(at === 'last' ? choices.at(-1)?.value : first?.value);
    // A finger opening Action gets the list, not a keyboard over half the screen.
    focusOnOpen.current = findable && !(how === 'pointer' && pointer.current === 'touch') ? 'find' : 'list';
    setOpen(true);
  };
  const close = (focusButton: boolean) => {
    setOpen(false);
    setQuery('');
    setNavigating(false);
    if (focusButton) button.current?.focus();
  };
  const toggle = (value: string | undefined) => {
    if (value !== undefined) onChange(toggled(choices, value));
  };
  const move = (how: Move) => setActive(shown[moved(activeIndex, shown.length, how)]?.value);

  /** Keys both the list and the text box answer the same way; true when handled. */
  const commonKey = (event: KeyboardEvent): boolean => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      close(true);
    } else if (event.key === 'Enter') {
      // Never the form's submission.
      toggle(active);
    } else return false;
    event.preventDefault();
    return true;
  };

  const onListKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (commonKey(event)) return;
    const how = MOVES[event.key];
    if (how) move(how);
    else if (event.key === ' ') toggle(active);
    else if (isPrintable(event) && findable) {
      // Typing in the list goes to the text box.
      setQuery(query + event.key);
      setActive(findChoices(choices, query + event.key)[0]?.value);
      setNavigating(false);
      find.current?.focus();
    } else if (isPrintable(event)) {
      const fresh = event.timeStamp - typed.current.at > TYPE_AHEAD_MS;
      const text = (fresh ? '' : typed.current.text) + event.key;
      typed.current = { text, at: event.timeStamp };
      setActive(shown[typedAhead(shown, text, activeIndex)]?.value);
    } else return;
    event.preventDefault();
  };

  const onFindKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (commonKey(event)) return;
    const how = MOVES[event.key];
    if (how === 'next' || how === 'previous' || (how && navigating)) {
      setNavigating(true);
      move(how);
    } else if (event.key === ' ' && navigating) toggle(active);
    else return;
    event.preventDefault();
  };

  const onPopupBlur = (event: FocusEvent) => {
    if (!(event.relatedTarget instanceof Node && popup.current?.contains(event.relatedTarget))) close(false);
  };

  return (
    <div className="multi-select__anchor">
      <button
        ref={button}
        id={buttonId}
        type="button"
        className="multi-select__button"
        // Named "Status: Any": the label, then the text it shows, so a person who says what they see reaches it.
        aria-labelledby={`${labelId} ${id}-summary`}
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        onPointerDown={(event) => (pointer.current = event.pointerType)}
        // Pressed while open, the button closes the popup: focus stays put until then, so its blur does not close it first.
        onMouseDown={(event) => open && event.preventDefault()}
        onClick={(event) => (open ? close(true) : openPopup(event.detail === 0 ? 'keyboard' : 'pointer'))}
        onKeyDown={(event) => {
          if (open || (event.key !== 'ArrowDown' && event.key !== 'ArrowUp')) return;
          event.preventDefault();
          openPopup('keyboard', event.key === 'ArrowUp' ? 'last' : 'chosen');
        }}
      >
        <span id={`${id}-summary`} className="multi-select__summary">
          {summaryOf(choices)}
        </span>
        <span className="multi-select__caret" aria-hidden="true" />
      </button>
      {open && (
        <div
          ref={popup}
          className="multi-select__popup"
          onBlur={onPopupBlur}
          // A press anywhere in the popup but its text box keeps focus where it is (the list, or the text box).
          onMouseDown={(event) => event.target !== find.current && event.preventDefault()}
        >
          {findable && (
            <input
              ref={find}
              type="text"
              className="multi-select__find"
              role="combobox"
              aria-label="Find in the list"
              aria-autocomplete="list"
              aria-expanded="true"
              aria-controls={listId}
              aria-activedescendant={activeId}
              aria-describedby={`${id}-find-hint`}
              placeholder="Type to narrow the list"
              autoComplete="off"
              spellCheck={false}
              value={query}
              onChange={(event) => {
                setQuery(event.target.value);
                setActive(findChoices(choices, event.target.value)[0]?.value);
                setNavigating(false);
              }}
              onKeyDown={onFindKeyDown}
            />
          )}
          {findable && (
            <span id={`${id}-find-hint`} className="visually-hidden">
              Up and down arrows move through the list; Enter, or Space once an arrow has moved, chooses.
            </span>
          )}
          <div
            ref={list}
            id={listId}
            role="listbox"
            aria-labelledby={labelId}
            aria-multiselectable="true"
            aria-activedescendant={activeId}
            tabIndex={-1}
            className="multi-select__list"
            onKeyDown={onListKeyDown}
            onFocus={() => activeIndex < 0 && move('first')}
          >
            {shown.map((choice) => (
              <div
                key={choice.value}
                id={optionId(choice.value)}
                role="option"
                aria-selected={choice.selected}
                className={`multi-select__option${choice.value === active ? ' multi-select__option--active' : ''}`}
                onClick={() => {
                  setActive(choice.value);
                  toggle(choice.value);
                }}
              >
                <span className="multi-select__check" aria-hidden="true" />
                {choice.label}
              </div>
            ))}
          </div>
          {findable && (
            <p className="multi-select__none" role="status">
              {shown.length === 0 ? `Nothing in the list has “${query.trim()}”.` : ''}
            </p>
          )}
        </div>
      )}
    </div>
  );
}
