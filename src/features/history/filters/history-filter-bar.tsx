import { useMemo, type Ref } from 'react';
import { actionChoices, statusChoices, statusesOf } from './filter-choices';
import { isFiltered, NO_FILTERS, type HistoryFilters } from './filters';
import { MultiSelectField } from './multi-select-field';
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

/** The filters above a history: Status, Action, Branch, Compute, the time range and the text box; each change is a new address. */
export function HistoryFilterBar({ filters, onChange, branches, computes, seenActions, searchRef }: HistoryFilterBarProps) {
  const actions = useMemo(() => actionChoices(seenActions, filters.action), [seenActions, filters.action]);
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
        choices={actions}
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
