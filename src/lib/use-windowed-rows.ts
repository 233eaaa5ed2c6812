import { defaultRangeExtractor, useWindowVirtualizer, type Range } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type FocusEvent } from 'react';

/** Up to this many rows a table renders them all (cheap enough, and nothing to get wrong). */
export const RENDER_ALL_UP_TO_ROWS = 200;

/** What a windowed table body renders, top to bottom: rows by index, and gaps standing in for the rows left out. */
export type RowSlot = { kind: 'row'; index: number; key: string } | { kind: 'gap'; key: string; height: number };

interface WindowedRowsOptions<T> {
  rows: readonly T[];
  rowKey: (row: T) => string;
  /** A row's height before one is measured (and where there is no layout, as in jsdom). Rows are all one height. */
  estimatedRowHeight: number;
  /** Rows kept rendered beyond each edge of the window. */
  overscan?: number;
}

export interface WindowedRows {
  /** Whether rows are being left out (long tables only). */
  windowed: boolean;
  slots: RowSlot[];
  /** On the `<tbody>`, whose rows carry `data-index`: where the rows start on the page, and their height. */
  bodyRef: (node: HTMLTableSectionElement | null) => void;
  /** On the `<tbody>`: a row holding focus stays rendered when it scrolls out of the window. */
  onFocus: (event: FocusEvent<HTMLTableSectionElement>) => void;
  onBlur: (event: FocusEvent<HTMLTableSectionElement>) => void;
}

/**
 * Table rows windowed against the page's own scrolling: only the rows near the viewport are in the
 * DOM, with gap rows keeping the table's height, so a long table costs what a screenful costs. Short
 * tables render every row. The row that holds keyboard focus is always rendered.
 */
export function useWindowedRows<T>({ rows, rowKey, estimatedRowHeight, overscan = 12 }: WindowedRowsOptions<T>): WindowedRows {
  const count = rows.length;
  const windowed = count > RENDER_ALL_UP_TO_ROWS;
  const [scrollMargin, setScrollMargin] = useState(0);
  const [focusedKey, setFocusedKey] = useState<string | null>(null);
  const [rowHeight, setRowHeight] = useState(estimatedRowHeight);
  const bodyRef = useRef<HTMLTableSectionElement | null>(null);
  const rowMeasured = useRef(false);

  const focusedIndex = useMemo(() => (focusedKey === null ? -1 : rows.findIndex((row) => rowKey(row) === focusedKey)), [rows, rowKey, focusedKey]);

  const rangeExtractor = useCallback(
    (range: Range) => {
      const indexes = defaultRangeExtractor(range);
      if (focusedIndex < 0 || indexes.includes(focusedIndex)) return indexes;
      return [...indexes, focusedIndex].sort((a, b) => a - b);
    },
    [focusedIndex],
  );

  const getItemKey = useCallback(
    (index: number) => {
      const row = rows[index];
      return row === undefined ? index : rowKey(row);
    },
    [rows, rowKey],
  );

  // Every row has one height (cells don't wrap), so one measured row sizes them all: no per-row
  // measuring, hence no scroll corrections while the page scrolls.
  // A short table is not windowed: the virtualizer stays off, so it neither listens to the page's
  // scrolling nor reads layout (its start-up scrollTo forces a layout before the first paint).
  const virtualizer = useWindowVirtualizer({
    enabled: windowed,
    count,
    estimateSize: () => rowHeight,
    overscan,
    scrollMargin,
    getItemKey,
    rangeExtractor,
    // Without layout (jsdom) the window is a typical screen, not nothing.
    initialRect: { width: 1280, height: 800 },
  });

  useLayoutEffect(() => {
    if (windowed) virtualizer.measure();
  }, [virtualizer, rowHeight, windowed]);

  // Measured once, as the distance from one rendered row to the next (a row's own box varies by half a
  // collapsed border next to a gap row), and again after the window resizes (zoom, font size).
  const measureRows = useCallback(() => {
    if (!windowed || rowMeasured.current || !bodyRef.current) return;
    const rows = Array.from(bodyRef.current.querySelectorAll('tr[data-index]'), (row) => ({
      row,
      index: Number(row.getAttribute('data-index')),
    }));
    const first = rows[0];
    if (!first) return;
    // The run of consecutive rows from the first one (a kept focused row may sit apart, past a gap).
    let span = 0;
    while (rows[span + 1]?.index === first.index + span + 1) span++;
    const last = rows[span]?.row;
    if (!last || span === 0) return;
    const height = (last.getBoundingClientRect().top - first.row.getBoundingClientRect().top) / span;
    // Without layout (jsdom) rows have no height: the estimate stays.
    if (!(height > 0)) return;
    rowMeasured.current = true;
    setRowHeight((before) => (Math.abs(before - height) < 0.01 ? before : height));
  }, [windowed]);

  useLayoutEffect(measureRows);

  useEffect(() => {
    const remeasure = () => {
      rowMeasured.current = false;
      measureRows();
    };
    window.addEventListener('resize', remeasure);
    return () => window.removeEventListener('resize', remeasure);
  }, [measureRows]);

  // The rows start below whatever the page shows above the table, which changes as it loads: measured
  // again whenever the page's size changes (after layout, so the read is cheap).
  useLayoutEffect(() => {
    if (!windowed) return;
    const measure = () => {
      const body = bodyRef.current;
      if (!body) return;
      const top = Math.round(body.getBoundingClientRect().top + window.scrollY);
      setScrollMargin((before) => (before === top ? before : top));
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, [windowed]);

  const items = virtualizer.getVirtualItems();
  const totalSize = virtualizer.getTotalSize();
  const slots = useMemo(() => {
    if (!windowed) return rows.map((row, index): RowSlot => ({ kind: 'row', index, key: rowKey(row) }));
    const list: RowSlot[] = [];
    let end = scrollMargin;
    for (const item of items) {
      if (item.start > end + 0.5) list.push({ kind: 'gap', key: `gap-before-${String(item.key)}`, height: item.start - end });
      list.push({ kind: 'row', index: item.index, key: String(item.key) });
      end = item.end;
    }
    if (totalSize > end + 0.5) list.push({ kind: 'gap', key: 'gap-end', height: totalSize - end });
    return list;
  }, [items, totalSize, scrollMargin, windowed, rows, rowKey]);

  const onFocus = useCallback(
    (event: FocusEvent<HTMLTableSectionElement>) => {
      const row = event.target.closest('tr[data-index]');
      const index = row instanceof HTMLElement ? Number(row.dataset.index) : NaN;
      const focused = rows[index];
      setFocusedKey(focused === undefined ? null : rowKey(focused));
    },
    [rows, rowKey],
  );
  const onBlur = useCallback((event: FocusEvent<HTMLTableSectionElement>) => {
    const body = event.currentTarget;
    // Once the focus has settled: a window losing focus keeps its focused row (it gets focus back later).
    setTimeout(() => {
      if (!body.contains(document.activeElement)) setFocusedKey(null);
    }, 0);
  }, []);

  const setBody = useCallback((node: HTMLTableSectionElement | null) => {
    bodyRef.current = node;
  }, []);

  return { windowed, slots, bodyRef: setBody, onFocus, onBlur };
}
