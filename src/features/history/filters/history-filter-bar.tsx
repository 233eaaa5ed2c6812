import { useMemo, type Ref } from 'react';
import { useLocation } from 'react-router-dom';
import { useTakenOver } from '../../../lib/use-taken-over';
import { actionChoices, statusChoices, statusesOf } from './filter-choices';
import { isFiltered, NO_FILTERS, searchWithFilters, type HistoryFilters } from '../../../model/filters';
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

/**
 * The filters above a history: Status, Action, Branch, Compute, the text box and the time range; each
 * change is a new address. A real GET form of the address's own parameters, so the server's page
 * filters before its script runs and without one (Apply filters; the time range is kept as it is).
 */
export function HistoryFilterBar({ filters, onChange, branches, computes, seenActions, searchRef }: HistoryFilterBarProps) {
  const { pathname, search } = useLocation();
  const takenOver = useTakenOver();
  const actions = useMemo(() => actionChoices(seenActions, filters.action), [seenActions, filters.action]);
  const set = (change: Partial<HistoryFilters>, replace = false) => onChange({ ...filters, ...change }, { replace });
  const hrefWith = (change: Partial<HistoryFilters>) => {
    const query = searchWithFilters(new URLSearchParams(search), { ...filters, ...change }).toString();
    return query ? `${pathname}?${query}` : pathname;
  };

  return (
    <form className="filter-bar" role="search" aria-label="Filter operations" method="get" action={pathname} onSubmit={(event) => event.preventDefault()}>
      <MultiSelectField
        label="Status"
        name="status"
        choices={statusChoices(filters.status)}
        onChange={(values) => set({ status: statusesOf(values, filters.status) })}
        hrefFor={(values) => hrefWith({ status: statusesOf(values, filters.status) })}
      />
      <MultiSelectField
        label="Action"
        name="action"
        findable
        choices={actions}
        onChange={(values) => set({ action: values })}
        hrefFor={(values) => hrefWith({ action: values })}
      />
      <SelectField label="Branch" name="branch" anyLabel="Any branch" value={filters.branch} options={branches} onChange={(branch) => set({ branch })} />
      <SelectField label="Compute" name="compute" anyLabel="Any compute" value={filters.compute} options={computes} onChange={(compute) => set({ compute })} />
      <SearchField value={filters.q} inputRef={searchRef} onChange={(q, { replace }) => set({ q }, replace)} />
      <TimeRangeFields from={filters.from} to={filters.to} onChange={(range, { replace }) => set(range, replace)} />
      {filters.from !== undefined && <input type="hidden" name="from" value={filters.from} />}
      {filters.to !== undefined && <input type="hidden" name="to" value={filters.to} />}
      <div className="filter-bar__buttons">
        {takenOver || !isFiltered(filters) ? (
          <button type="button" className="filter-bar__clear" disabled={!isFiltered(filters)} onClick={() => onChange(NO_FILTERS)}>
            Clear filters
          </button>
        ) : (
          <a className="filter-bar__clear filter-bar__link-button" href={hrefWith(NO_FILTERS)}>
            Clear filters
          </a>
        )}
        {!takenOver && <button type="submit">Apply filters</button>}
      </div>
    </form>
  );
}
