import { useEffect, useRef } from 'react';
import type { Choice } from './choice-list';

interface ChoiceChipsProps {
  choices: readonly Choice[];
  /** Takes one chosen value out (once the browser runs the page). */
  onRemove?: ((value: string) => void) | undefined;
  /** The address without that value: the chip's link on a page read before its script runs, or without one. */
  hrefWithout?: ((value: string) => string) | undefined;
  /** The control's button, which gets focus once its last chip is gone. */
  buttonId: string;
}

/** The chosen values of a multiple choice, each with a button that takes it out; focus goes to the next one (or the control). */
export function ChoiceChips({ choices, onRemove, hrefWithout, buttonId }: ChoiceChipsProps) {
  const chosen = choices.filter((choice) => choice.selected);
  const list = useRef<HTMLUListElement>(null);
  const refocus = useRef<number | null>(null);
  useEffect(() => {
    const index = refocus.current;
    if (index === null) return;
    refocus.current = null;
    const removes = list.current?.querySelectorAll<HTMLElement>('.chip__remove') ?? [];
    const next = removes[Math.min(index, removes.length - 1)] ?? document.getElementById(buttonId);
    next?.focus();
  }, [chosen.length, buttonId]);

  if (chosen.length === 0) return null;
  return (
    <ul ref={list} className="chips">
      {chosen.map((choice, index) => (
        <li key={choice.value} className="chip">
          <span className="chip__label">{choice.label}</span>
          {onRemove ? (
            <button
              type="button"
              className="chip__remove"
              aria-label={`Remove ${choice.label}`}
              onClick={() => {
                refocus.current = index;
                onRemove(choice.value);
              }}
            >
              ×
            </button>
          ) : hrefWithout ? (
            <a className="chip__remove" href={hrefWithout(choice.value)} aria-label={`Remove ${choice.label}`}>
              ×
            </a>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
