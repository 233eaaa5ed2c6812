import { useMemo, useState, type RefObject } from 'react';
import type { Shortcut } from '../../../components/shortcuts-dialog';
import { useShortcuts } from '../../../lib/use-shortcuts';

export const HISTORY_SHORTCUTS: readonly Shortcut[] = [
  { keys: '/', does: 'Search: focus the filter text box' },
  { keys: 'j', does: 'Next operation in the table' },
  { keys: 'k', does: 'Previous operation in the table' },
  { keys: 'Enter', does: 'Open the operation in focus' },
  { keys: 'w', does: 'Watch the operation in focus (again: stop watching)' },
  { keys: '?', does: 'Show these shortcuts' },
  { keys: 'Escape', does: 'Leave the text box; close this list' },
];

const ROW = 'tbody tr[data-index]';

/** The row of `table` that holds focus, if any. */
function focusedRow(table: Element): HTMLTableRowElement | null {
  const row = document.activeElement?.closest(ROW);
  return row instanceof HTMLTableRowElement && table.contains(row) ? row : null;
}

/** Moves focus to the link of the row `step` away from the focused one (the first row when none has focus). */
function moveFocus(table: Element | null, step: 1 | -1): void {
  if (!table) return;
  const current = focusedRow(table);
  const index = current ? Number(current.dataset.index) + step : 0;
  // A long table renders the rows around the focused one (its overscan), so the next row is there.
  const row = table.querySelector<HTMLTableRowElement>(`${ROW}[data-index="${Math.max(0, index)}"]`);
  const link = row?.querySelector<HTMLAnchorElement>('a[href]');
  // Focusing scrolls the row into view.
  link?.focus();
}

/**
 * The history's keys: `/` focuses the text box, `j`/`k` move focus between the table's rows, Enter
 * opens (the focused link's own), `w` presses the focused row's Watch, `?` lists them. Never while
 * typing in a field (lib/use-shortcuts.ts).
 */
export function useHistoryShortcuts({ searchRef, tableHolder }: { searchRef: RefObject<HTMLInputElement | null>; tableHolder: RefObject<HTMLElement | null> }) {
  const [helpOpen, setHelpOpen] = useState(false);
  const shortcuts = useMemo(() => {
    const table = () => tableHolder.current?.querySelector('table') ?? null;
    return {
      '/': () => searchRef.current?.focus(),
      j: () => moveFocus(table(), 1),
      k: () => moveFocus(table(), -1),
      w: () => {
        const holder = table();
        const row = holder ? focusedRow(holder) : null;
        row?.querySelector<HTMLButtonElement>('button.watch-button')?.click();
      },
      '?': () => setHelpOpen(true),
    };
  }, [searchRef, tableHolder]);
  useShortcuts(shortcuts);
  return { helpOpen, closeHelp: () => setHelpOpen(false), openHelp: () => setHelpOpen(true) };
}
