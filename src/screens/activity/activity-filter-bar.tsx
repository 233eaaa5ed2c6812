import { useId, useMemo } from 'react';
import type { ActivityProject } from '../../api/activity-feed';
import { actionChoices, statusChoices, statusesOf } from '../../features/history/filters/filter-choices';
import { isFiltered, NO_FILTERS, type HistoryFilters } from '../../model/filters';
import { MultiSelectField } from '../../features/history/filters/multi-select-field';
import { SelectField } from '../../features/history/filters/select-field';
import { ENDED_WITHIN } from './activity-rows';
import type { ActivityAddress, ActivityAddressChange } from './use-activity-address';

interface ActivityFilterBarProps {
  address: ActivityAddress;
  onChange: (change: ActivityAddressChange) => void;
  projects: readonly ActivityProject[];
  seenActions: ReadonlySet<string>;
}

/** The history's Status and Action filters, a Project filter and how far back ended operations show; all in the address. */
export function ActivityFilterBar(props: ActivityFilterBarProps) {
  const { address, onChange } = props;
  const { filters, projectId, endedWithin } = address;
  const endedId = useId();
  const actions = useMemo(() => actionChoices(props.seenActions, filters.action), [props.seenActions, filters.action]);
  const set = (change: Partial<HistoryFilters>) => onChange({ filters: { ...filters, ...change } });
  return (
    <div className="filter-bar" role="search" aria-label="Filter operations">
      <MultiSelectField
        label="Status"
        name="status"
        choices={statusChoices(filters.status)}
        onChange={(values) => set({ status: statusesOf(values, filters.status) })}
      />
      <MultiSelectField label="Action" name="action" findable choices={actions} onChange={(values) => set({ action: values })} />
      <SelectField label="Project" anyLabel="Any project" value={projectId} options={props.projects} onChange={(next) => onChange({ projectId: next })} />
      <div className="filter-field">
        <label htmlFor={endedId}>Ended within the last</label>
        <select id={endedId} value={endedWithin.value} onChange={(e) => onChange({ endedWithin: e.target.value })}>
          {ENDED_WITHIN.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </div>
      <button
        type="button"
        className="filter-bar__clear"
        disabled={!isFiltered(filters) && projectId === undefined}
        onClick={() => onChange({ filters: NO_FILTERS, projectId: undefined })}
      >
        Clear filters
      </button>
    </div>
  );
}
