import { searchable } from '../../../model/filter-fields';

// The list a Status or Action popup shows, and how the keyboard moves through it: pure, so the popup
// (multi-select-popup.tsx) only holds which choice is active and what was typed.

export interface Choice {
  /** What the popup hands back when chosen (Status: its first API value; Action: the action). */
  value: string;
  label: string;
  selected: boolean;
  /** What the no-script form sends for it, when not `value` (Status: every API value the label stands for). */
  formValue?: string;
}

/** The choices whose label or value holds `query`, read as the text filter reads (src/model/filter-fields.ts: case alike, `_` as a space). */
export function findChoices(choices: readonly Choice[], query: string): readonly Choice[] {
  const needle = searchable(query.trim());
  if (needle === '') return choices;
  return choices.filter((choice) => searchable(choice.label).includes(needle) || searchable(choice.value).includes(needle));
}

/** The values chosen once `value` is toggled, in the order of `choices`. */
export function toggled(choices: readonly Choice[], value: string): string[] {
  return choices.filter((choice) => (choice.value === value ? !choice.selected : choice.selected)).map((choice) => choice.value);
}

/** The values chosen without `value`. */
export function without(choices: readonly Choice[], value: string): string[] {
  return choices.filter((choice) => choice.selected && choice.value !== value).map((choice) => choice.value);
}

/** What the closed control says: "Any", the one label chosen, or how many are. */
export function summaryOf(choices: readonly Choice[]): string {
  const chosen = choices.filter((choice) => choice.selected);
  if (chosen.length === 0) return 'Any';
  if (chosen.length === 1) return chosen[0]?.label ?? '';
  return `${chosen.length} chosen`;
}

export type Move = 'next' | 'previous' | 'first' | 'last';

/** The index `move` leads to from `index` (-1: none active yet) in a list of `length`; it stops at either end. */
export function moved(index: number, length: number, move: Move): number {
  if (length === 0) return -1;
  switch (move) {
    case 'first':
      return 0;
    case 'last':
      return length - 1;
    case 'next':
      return Math.min(index + 1, length - 1);
    case 'previous':
      return index < 0 ? length - 1 : Math.max(index - 1, 0);
  }
}

/**
 * Type-ahead (WAI-ARIA APG listbox): the next choice, after `index`, whose label starts with what was
 * typed; a letter typed again and again steps through the labels that start with it.
 */
export function typedAhead(choices: readonly Choice[], typed: string, index: number): number {
  const text = typed.toLowerCase();
  if (text === '') return index;
  const repeated = text.replaceAll(text.charAt(0), '') === '';
  const prefix = repeated ? text.charAt(0) : text;
  // A longer prefix may still fit the active choice; one letter again moves on from it.
  const start = repeated ? index + 1 : Math.max(index, 0);
  for (let step = 0; step < choices.length; step++) {
    const at = (start + step) % choices.length;
    if (choices[at]?.label.toLowerCase().startsWith(prefix)) return at;
  }
  return index;
}
