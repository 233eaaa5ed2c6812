import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import { filtersFromSearch, searchWithFilters, type HistoryFilters } from '../../model/filters';
import { DEFAULT_ENDED_WITHIN, endedWithinOf, type EndedWithin } from './activity-rows';

export interface ActivityAddress {
  filters: HistoryFilters;
  projectId: string | undefined;
  endedWithin: EndedWithin;
  /** What `?ended=` said when it names no choice (the page says it shows the default instead). */
  unknownEnded: string | undefined;
}

export interface ActivityAddressChange {
  filters?: HistoryFilters;
  projectId?: string | undefined;
  endedWithin?: string;
}

/**
 * The activity view's choices as the address holds them: the history's filters (`status`, `action`,
 * …), `project` and `ended` (`15m`, `1h`, `6h`, `1d`; one hour when absent). Each change is one new
 * history entry, so Back undoes it and a reload keeps it.
 */
export function useActivityAddress(): [ActivityAddress, (change: ActivityAddressChange) => void] {
  const [params, setParams] = useSearchParams();
  const search = params.toString();
  const address = useMemo((): ActivityAddress => {
    const current = new URLSearchParams(search);
    const ended = endedWithinOf(current.get('ended'));
    return { filters: filtersFromSearch(current), projectId: current.get('project') ?? undefined, endedWithin: ended.choice, unknownEnded: ended.unknown };
  }, [search]);
  const change = useCallback(
    (next: ActivityAddressChange) => {
      const target = searchWithFilters(new URLSearchParams(search), next.filters ?? address.filters);
      const projectId = 'projectId' in next ? next.projectId : address.projectId;
      if (projectId) target.set('project', projectId);
      else target.delete('project');
      const ended = next.endedWithin ?? address.endedWithin.value;
      if (ended === DEFAULT_ENDED_WITHIN.value) target.delete('ended');
      else target.set('ended', ended);
      if (target.toString() !== search) setParams(target);
    },
    [search, setParams, address],
  );
  return [address, change];
}
