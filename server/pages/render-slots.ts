// Caps on the rendering one process does at once: past them a page goes out as the shell (the browser then
// fetches its data itself) rather than queue behind renders already under way.

/**
 * Server-rendered pages one process has under way at once, waiting for their data included; past it a page
 * goes out as the shell at once instead of queueing behind them.
 */
export const MAX_CONCURRENT_RENDERS = 8;

/**
 * React renders one process runs at once, once their data is in (a page whose render is kept, render-memo.ts,
 * needs none). A render is CPU: more at once on a core only stretches each one's latency, and holds up
 * everything else the process answers (/healthz included); past it the page goes out as the shell.
 */
export const MAX_CONCURRENT_REACT_RENDERS = 2;

/** Counts the renders under way in one process; `enter` is refused past the cap. */
export interface RenderSlots {
  enter: () => boolean;
  leave: () => void;
  readonly inUse: number;
  /** Every slot taken: the next page goes out as the shell. */
  readonly full: boolean;
}

export function createRenderSlots(max = MAX_CONCURRENT_RENDERS): RenderSlots {
  let inUse = 0;
  return {
    enter: () => (inUse < max ? (inUse++, true) : false),
    leave: () => void (inUse = Math.max(0, inUse - 1)),
    get inUse() {
      return inUse;
    },
    get full() {
      return inUse >= max;
    },
  };
}
