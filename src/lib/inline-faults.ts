import { createContext, useContext, useLayoutEffect } from 'react';

/**
 * Which failures a screen shows inline itself, by id, so a page-wide notice does not say the same
 * thing a second time (one message per fault). Generic: the ids are whatever the notices are keyed by.
 */
export interface InlineFaults {
  /** Marks `id` as shown inline until the returned function is called. */
  claim: (id: string) => () => void;
}

export const InlineFaultsContext = createContext<InlineFaults | null>(null);

/** While mounted, the failure `id` is shown by the caller (nothing happens outside a provider). */
export function useShownInline(id: string | undefined): void {
  const faults = useContext(InlineFaultsContext);
  // Before paint: a notice for the same fault never flashes up beside the inline message.
  useLayoutEffect(() => (faults && id !== undefined ? faults.claim(id) : undefined), [faults, id]);
}
