import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { BrowserRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { HistoryFilterBar } from '../../../src/features/history/filters/history-filter-bar';
import { useFiltersInAddress } from '../../../src/features/history/filters/use-filters-in-address';

// Status and Action as popups (issue "Every screen finished"): a plain click chooses, the keyboard does
// all a pointer does, the chosen values are chips, and the address stays the one source of what is
// chosen. The bar alone over the real address (the table's side: filters-in-address.test.tsx).

const SEEN = new Set(['apply_config', 'delete_tenant']);

function FilterBarAtAddress() {
  const [filters, setFilters] = useFiltersInAddress();
  return <HistoryFilterBar filters={filters} onChange={setFilters} branches={[]} computes={[]} seenActions={SEEN} />;
}

function renderBar(search = '') {
  window.history.pushState({}, '', `/projects/p-1${search}`);
  const user = userEvent.setup();
  render(
    <BrowserRouter>
      <FilterBarAtAddress />
    </BrowserRouter>,
  );
  return user;
}

const param = (name: string) => new URLSearchParams(window.location.search).get(name);
const options = () => within(screen.getByRole('listbox')).getAllByRole('option');
const activeOption = () => document.getElementById(screen.getByRole('listbox').getAttribute('aria-activedescendant') ?? '');
const chips = () => Array.from(document.querySelectorAll('.chip__label'), (label) => label.textContent);

describe('the Status and Action popups', () => {
  it('chooses with plain clicks, each choice a new address entry and a chip; no native multi-select box is left', async () => {
    const user = renderBar();
    expect(document.querySelector('select[multiple]')).toBeNull();
    const status = screen.getByRole('button', { name: /^Status\b/ });
    expect(status).toHaveAccessibleName('Status Any');
    expect(screen.queryByRole('listbox')).toBeNull();
    const entries = window.history.length;

    await user.click(status);
    expect(status).toHaveAttribute('aria-expanded', 'true');
    const list = screen.getByRole('listbox', { name: 'Status' });
    expect(list).toHaveAttribute('aria-multiselectable', 'true');
    expect(options().map((option) => option.textContent)).toEqual(['OK', 'In progress', 'Scheduling', 'Error', 'Cancelled', 'Skipped', 'other']);
    await user.click(screen.getByRole('option', { name: 'Error' }));
    expect(param('status')).toBe('failed,error');
    // Still open for the next one.
    await user.click(screen.getByRole('option', { name: 'Cancelled' }));
    expect(param('status')).toBe('failed,error,cancelled');
    expect(screen.getByRole('option', { name: 'Error' })).toHaveAttribute('aria-selected', 'true');
    expect(window.history.length).toBe(entries + 2);
    expect(status).toHaveAccessibleName('Status 2 chosen');
    expect(chips()).toEqual(['Error', 'Cancelled']);

    // A second click takes a choice out again.
    await user.click(screen.getByRole('option', { name: 'Error' }));
    expect(param('status')).toBe('cancelled');
    // A click elsewhere closes it.
    await user.click(document.body);
    expect(screen.queryByRole('listbox')).toBeNull();
  });

  it("takes a value out with its chip's button, focus going on to the next chip, then to the control", async () => {
    const user = renderBar('?status=failed,error,cancelled&action=apply_config');
    expect(chips()).toEqual(['Error', 'Cancelled', 'Apply config']);
    await user.click(screen.getByRole('button', { name: 'Remove Error' }));
    expect(param('status')).toBe('cancelled');
    expect(param('action')).toBe('apply_config');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Remove Cancelled' })).toHaveFocus());
    await user.keyboard('{Enter}');
    expect(param('status')).toBeNull();
    await waitFor(() => expect(screen.getByRole('button', { name: /^Status\b/ })).toHaveFocus());
    expect(chips()).toEqual(['Apply config']);
  });

  it('works by keyboard: Enter opens, arrows, Home and End move, Space toggles, a letter jumps, Escape closes, Tab leaves', async () => {
    const user = renderBar();
    screen.getByRole('button', { name: /^Status\b/ }).focus();
    await user.keyboard('{Enter}');
    const list = screen.getByRole('listbox', { name: 'Status' });
    expect(list).toHaveFocus();
    expect(activeOption()).toHaveTextContent('OK');
    await user.keyboard('{ArrowDown}');
    expect(activeOption()).toHaveTextContent('In progress');
    await user.keyboard(' ');
    expect(param('status')).toBe('running,cancelling');
    await user.keyboard('{End}');
    expect(activeOption()).toHaveTextContent('other');
    await user.keyboard('{Home}');
    expect(activeOption()).toHaveTextContent('OK');
    // Type-ahead: the labels starting with what was typed; the same letter again steps through them.
    await user.keyboard('s');
    expect(activeOption()).toHaveTextContent('Scheduling');
    await user.keyboard('s');
    expect(activeOption()).toHaveTextContent('Skipped');
    await user.keyboard('{Enter}');
    expect(param('status')).toBe('running,cancelling,skipped');

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(screen.getByRole('button', { name: /^Status\b/ })).toHaveFocus();
    // The choice shows where the list was: an arrow opens it there.
    await user.keyboard('{ArrowDown}');
    expect(activeOption()).toHaveTextContent('In progress');
    await user.tab();
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(screen.getByRole('button', { name: 'Remove In progress' })).toHaveFocus();
  });

  it('narrows Action as a person types; Enter chooses the first match, and after an arrow Space chooses', async () => {
    const user = renderBar();
    screen.getByRole('button', { name: /^Action\b/ }).focus();
    await user.keyboard(' ');
    const find = screen.getByRole('combobox', { name: 'Find in the list' });
    expect(find).toHaveFocus();
    // The platform's 33, and the actions seen in the history.
    expect(options()).toHaveLength(34);
    await user.keyboard('start comp');
    expect(options().map((option) => option.textContent)).toEqual(['Start compute']);
    await user.clear(find);
    // The API's spelling finds it too, Space typed as a space.
    await user.keyboard('suspend_');
    expect(options().map((option) => option.textContent)).toEqual(['Suspend compute']);
    await user.clear(find);
    await user.keyboard('compute');
    expect(options().map((option) => option.textContent)).toEqual([
      'Create compute',
      'Start compute',
      'Start reserved compute',
      'Suspend compute',
      'Sync dbs and roles from compute',
    ]);
    await user.keyboard('{Enter}');
    expect(param('action')).toBe('create_compute');
    await user.keyboard('{ArrowDown}');
    expect(find).toHaveAttribute('aria-activedescendant', screen.getByRole('option', { name: 'Start compute' }).id);
    await user.keyboard(' ');
    expect(param('action')).toBe('create_compute,start_compute');
    expect(find).toHaveValue('compute');

    await user.keyboard('xyz');
    expect(within(screen.getByRole('listbox', { name: 'Action' })).queryAllByRole('option')).toHaveLength(0);
    expect(screen.getByRole('status')).toHaveTextContent('Nothing in the list has “computexyz”.');
    await user.keyboard('{Escape}');
    expect(screen.getByRole('button', { name: /^Action\b/ })).toHaveFocus();
    expect(chips()).toEqual(['Create compute', 'Start compute']);
  });
});
