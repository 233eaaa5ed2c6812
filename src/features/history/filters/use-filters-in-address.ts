import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import { filtersFromSearch, searchWithFilters, type HistoryFilters } from '../../../model/filters';

export type SetFilters = (next: HistoryFilters, options?: { replace?: boolean }) => void;

/**
 * The filters of the page's address, and a setter that writes them back: a new history entry per
 * change (Back undoes it), or in place while a person is still editing a field (`replace`). Reload
 * keeps them. Setting the filters the address already says changes nothing.
 */
export function useFiltersInAddress(): [HistoryFilters, SetFilters] {
  const [params, setParams] = useSearchParams();
  const search = params.toString();
  // The same query string is the same filters: no new object (and no new walk) per render.
  const filters = useMemo(() => filtersFromSearch(new URLSearchParams(search)), [search]);
  const setFilters = useCallback<SetFilters>(
    (next, options) => {
      const target = searchWithFilters(new URLSearchParams(search), next);
      if (target.toString() === search) return;
      setParams(target, { replace: options?.replace ?? false });
    },
    [search, setParams],
  );
  return [filters, setFilters];
}
