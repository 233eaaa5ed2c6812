import { describe, expect, it } from 'vitest';
import { createRenderMemo } from '../../../server/pages/render-memo';
import type { RenderedScreen } from '../../../src/entry-server';

const page = (html: string): RenderedScreen => ({ kind: 'rendered', html, queries: { mutations: [], queries: [] }, renderedAt: 0 });

describe('the renders a server process keeps', () => {
  it('keeps the newest few: past its size the oldest goes, and a page kept again counts as new', () => {
    const memo = createRenderMemo({ max: 2, now: () => 0 });
    memo.set('a', page('A'));
    memo.set('b', page('B'));
    memo.set('a', page('A again'));
    memo.set('c', page('C'));
    expect(memo.get('b')).toBeUndefined();
    expect(memo.get('a')?.html).toBe('A again');
    expect(memo.get('c')?.html).toBe('C');
  });

  it('reuses a render only inside its window', () => {
    let now = 0;
    const memo = createRenderMemo({ reuseMs: 1_000, now: () => now });
    memo.set('inputs', page('rendered'));
    now = 999;
    expect(memo.get('inputs')?.html).toBe('rendered');
    now = 1_000;
    expect(memo.get('inputs')).toBeUndefined();
  });
});
