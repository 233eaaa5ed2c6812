// The order of operations that share a created_at (the platform's whole seconds), as the API lists them: the
// API orders its list to the microsecond, so a page gives the order of the operations on it, and the store keeps
// it as `rank` (larger is newer; migrations/005_operation_rank.sql). A page seldom holds a whole second next to
// what the store holds of it: its first operations may go on from the previous page of the same read, its last
// ones may stop inside a second whose older operations the store has from an earlier read, and the API may no
// longer list some of them at all. So each second the page touches is numbered again as a whole: the page's
// order among its own operations, the store's order among the rest, and the two placed by the page's
// operations the store already knows.

/** An operation of the page: its id and its created_at (ms), in the page's order (newest first). */
export interface PagedOperation {
  id: string;
  at: number;
}

/** An operation the store holds in one of the page's seconds, with its rank. */
export interface RankedOperation {
  id: string;
  at: number;
  rank: number;
}

/**
 * The ranks of every operation in the seconds `page` touches: the page's and the store's (`stored`) others.
 * `follows`: the page goes on from a previous page of the same read, so a second it opens with, if the store
 * holds some of it but the page knows none of those, goes on after them (older); otherwise such a second's
 * stored operations are older than the page's.
 */
export function rankSeconds(page: readonly PagedOperation[], stored: readonly RankedOperation[], follows: boolean): Map<string, number> {
  const groups = new Map<number, string[]>();
  for (const op of page) {
    const group = groups.get(op.at);
    if (group) {
      if (!group.includes(op.id)) group.push(op.id);
    } else groups.set(op.at, [op.id]);
  }
  const storedByAt = new Map<number, RankedOperation[]>();
  for (const row of stored) {
    const rows = storedByAt.get(row.at);
    if (rows) rows.push(row);
    else storedByAt.set(row.at, [row]);
  }
  const firstAt = page[0]?.at;
  const ranks = new Map<string, number>();
  for (const [at, ids] of groups) {
    const known = new Map((storedByAt.get(at) ?? []).map((row) => [row.id, row.rank]));
    const onPage = new Set(ids);
    // Positions: smaller is newer. The store's rank read as one (larger rank, newer: so its negative).
    const others = [...known].filter(([id]) => !onPage.has(id)).map(([id, rank]) => ({ id, key: -rank }));
    const keys = pageKeys(ids, known, others, follows && at === firstAt);
    const all = [...ids.map((id, i) => ({ id, key: keys[i] ?? i, page: true })), ...others.map((o) => ({ ...o, page: false }))];
    // The page's operation first where a key is shared: it is the one listed now.
    all.sort((a, b) => a.key - b.key || Number(b.page) - Number(a.page));
    all.forEach((op, i) => ranks.set(op.id, all.length - 1 - i));
  }
  return ranks;
}

/** Where each of the page's operations of one second stands among the store's (`known`: id → rank). */
function pageKeys(ids: readonly string[], known: ReadonlyMap<string, number>, others: readonly { key: number }[], opensPage: boolean): number[] {
  const anchors = ids.map((id) => {
    const rank = known.get(id);
    return rank === undefined ? undefined : -rank;
  });
  if (anchors.every((key) => key === undefined)) {
    const otherKeys = others.map((o) => o.key);
    // Nothing to place them by: after the store's (the page goes on from the previous one), else before them.
    const start = otherKeys.length === 0 ? 0 : opensPage ? Math.max(...otherKeys) + 1 : Math.min(...otherKeys) - ids.length;
    return ids.map((_, i) => start + i);
  }
  // The page's own order wins over the store's where they disagree.
  for (let i = 1, last = -Infinity; i <= anchors.length; i++) {
    const key = anchors[i - 1];
    if (key === undefined) continue;
    const kept = Math.max(key, last + 1);
    anchors[i - 1] = kept;
    last = kept;
  }
  const keys: number[] = [];
  for (let i = 0; i < ids.length;) {
    const anchor = anchors[i];
    if (anchor !== undefined) {
      keys.push(anchor);
      i++;
      continue;
    }
    // A run of operations the store does not know, between two it does (or an end of the page).
    let end = i;
    while (end < ids.length && anchors[end] === undefined) end++;
    const before = i > 0 ? anchors[i - 1] : undefined;
    const after = end < ids.length ? anchors[end] : undefined;
    const count = end - i;
    for (let j = 1; j <= count; j++) {
      if (before !== undefined && after !== undefined) keys.push(before + ((after - before) * j) / (count + 1));
      else if (before !== undefined) keys.push(before + j / (count + 1));
      else if (after !== undefined) keys.push(after - (count + 1 - j) / (count + 1));
    }
    i = end;
  }
  return keys;
}
