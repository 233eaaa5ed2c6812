import { humanizeAction } from '../../../lib/format';
import { KNOWN_ACTIONS, STATUS_CHOICES } from '../../../model/filters';
import type { Choice } from './choice-list';

// The Status and Action controls' choices, for every filter bar that offers them (a project's history, the activity view).

/**
 * A choice's value: its first API value. The no-script form sends the values it stands for in the
 * address now (or all of them), so sending the form again keeps `?status=failed` as it is.
 */
export const statusChoices = (selected: readonly string[]): Choice[] =>
  STATUS_CHOICES.map((choice) => {
    const kept = choice.statuses.filter((s) => selected.includes(s));
    return {
      value: choice.statuses[0] ?? choice.label,
      label: choice.label,
      selected: kept.length > 0,
      formValue: (kept.length > 0 ? kept : choice.statuses).join(','),
    };
  });

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
