import { humanizeAction } from '../../../lib/format';
import { KNOWN_ACTIONS, STATUS_CHOICES } from './filters';
import type { Choice } from './multi-select-field';

// The Status and Action controls' choices, for every filter bar that offers them (a project's history, the activity view).

/** A choice's value in the list box: its first API value, so a test or a person may pick it by either. */
export const statusChoices = (selected: readonly string[]): Choice[] =>
  STATUS_CHOICES.map((choice) => ({
    value: choice.statuses[0] ?? choice.label,
    label: choice.label,
    selected: choice.statuses.some((s) => selected.includes(s)),
  }));

/**
 * The statuses the chosen labels stand for: a label chosen just now brings all its values; one that
 * stays chosen keeps the values the address had (`?status=failed` stays `failed`, not `failed,error`).
 */
export function statusesOf(values: readonly string[], before: readonly string[]): string[] {
  return STATUS_CHOICES.flatMap((choice) => {
    if (!values.includes(choice.statuses[0] ?? choice.label)) return [];
    const kept = choice.statuses.filter((s) => before.includes(s));
    return kept.length > 0 ? kept : [...choice.statuses];
  });
}

/** The platform's actions, those seen and those chosen, by name. */
export function actionChoices(seen: ReadonlySet<string>, selected: readonly string[]): Choice[] {
  const all = new Set([...KNOWN_ACTIONS, ...seen, ...selected]);
  return [...all]
    .map((action) => ({ value: action, label: humanizeAction(action), selected: selected.includes(action) }))
    .sort((a, b) => a.label.localeCompare(b.label));
}
