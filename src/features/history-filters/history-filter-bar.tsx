import { useMemo, type Ref } from 'react';
import { humanizeAction } from '../../lib/format';
import { isFiltered, KNOWN_ACTIONS, NO_FILTERS, STATUS_CHOICES, type HistoryFilters } from './filters';
import { MultiSelectField, type Choice } from './multi-select-field';
import { SearchField } from './search-field';
import { SelectField } from './select-field';
import { TimeRangeFields } from './time-range-fields';
import type { SetFilters } from './use-filters-in-address';

interface NamedThing {
  id: string;
  name: string;
}

interface HistoryFilterBarProps {
  filters: HistoryFilters;
  onChange: SetFilters;
  branches: readonly NamedThing[];
  computes: readonly NamedThing[];
  /** Actions seen in the loaded history, offered beside the platform's known ones. */
  seenActions: ReadonlySet<string>;
  searchRef?: Ref<HTMLInputElement>;
}

/** A choice's value in the list box: its first API value, so a test or a person may pick it by either. */
const statusChoices = (selected: readonly string[]): Choice[] =>
  STATUS_CHOICES.map((choice) => ({
    value: choice.statuses[0] ?? choice.label,
    label: choice.label,
    selected: choice.statuses.some((s) => selected.includes(s)),
  }));

/**
 * The statuses the chosen labels stand for: a label chosen just now brings all its values; one that
 * stays chosen keeps the values the address had (`?status=failed` stays `failed`, not `failed,error`).
 */
function statusesOf(values: readonly string[], before: readonly string[]): string[] {
  return STATUS_CHOICES.flatMap((choice) => {
    if (!values.includes(choice.statuses[0] ?? choice.label)) return [];
    const kept = choice.statuses.filter((s) => before.includes(s));
    return kept.length > 0 ? kept : [...choice.statuses];
  });
}

/** The filters above a history: Status, Action, Branch, Compute, the time range and the text box; each change is a new address. */
export function HistoryFilterBar({ filters, onChange, branches, computes, seenActions, searchRef }: HistoryFilterBarProps) {
  const actions = useMemo(() => {
    const all = new Set([...KNOWN_ACTIONS, ...seenActions, ...filters.action]);
    return [...all].map((action) => ({ action, label: humanizeAction(action) })).sort((a, b) => a.label.localeCompare(b.label));
  }, [seenActions, filters.action]);
  const set = (change: Partial<HistoryFilters>, replace = false) => onChange({ ...filters, ...change }, { replace });

  return (
    <div className="filter-bar" role="search" aria-label="Filter operations">
      <MultiSelectField
        label="Status"
        choices={statusChoices(filters.status)}
        size={7}
        onChange={(values) => set({ status: statusesOf(values, filters.status) })}
      />
      <MultiSelectField
        label="Action"
        choices={actions.map(({ action, label }) => ({ value: action, label, selected: filters.action.includes(action) }))}
        size={7}
        onChange={(values) => set({ action: values })}
      />
      <div className="filter-bar__column">
        <SelectField label="Branch" anyLabel="Any branch" value={filters.branch} options={branches} onChange={(branch) => set({ branch })} />
        <SelectField label="Compute" anyLabel="Any compute" value={filters.compute} options={computes} onChange={(compute) => set({ compute })} />
        <SearchField value={filters.q} inputRef={searchRef} onChange={(q, { replace }) => set({ q }, replace)} />
      </div>
      <div className="filter-bar__column">
        <TimeRangeFields from={filters.from} to={filters.to} onChange={(range, { replace }) => set(range, replace)} />
        <button type="button" className="filter-bar__clear" disabled={!isFiltered(filters)} onClick={() => onChange(NO_FILTERS)}>
          Clear filters
        </button>
      </div>
    </div>
  );
}
