// Renders kept a short while and reused when a page's inputs come back the same (src/entry-server.tsx's
// RenderMemo): the same address, session description and data give the same HTML, so a second person
// (or a reload) opening a project whose history has not moved gets the HTML made a moment ago instead of
// React's ~20 ms of CPU again. Every page still reads its data from the API; only the render is reused,
// and only while its relative times ("2 minutes ago", worked out when it was made) are still right.
import { createHash } from 'node:crypto';
import type { RenderedScreen, RenderMemo } from '../../src/entry-server';

/** How long a render is reused: its relative times are to the minute, and the browser's clock takes over on hydration. */
export const RENDER_REUSE_MS = 2_000;
/** Renders kept per process at most (a rendered project page is about 100 KB with its data). */
export const MAX_KEPT_RENDERS = 64;

export interface RenderMemoOptions {
  reuseMs?: number;
  max?: number;
  now?: () => number;
}

export function createRenderMemo({ reuseMs = RENDER_REUSE_MS, max = MAX_KEPT_RENDERS, now = Date.now }: RenderMemoOptions = {}): RenderMemo {
  const kept = new Map<string, { render: RenderedScreen; until: number }>();
  // The inputs hold a session's fingerprint and its data: kept by digest, never as text.
  const digest = (inputs: string) => createHash('sha256').update(inputs).digest('base64');
  return {
    get: (inputs) => {
      const key = digest(inputs);
      const entry = kept.get(key);
      if (!entry) return undefined;
      if (entry.until > now()) return entry.render;
      kept.delete(key);
      return undefined;
    },
    set: (inputs, render) => {
      const key = digest(inputs);
      kept.delete(key);
      // The oldest goes first (a Map keeps insertion order).
      if (kept.size >= max) kept.delete(kept.keys().next().value ?? '');
      kept.set(key, { render, until: now() + reuseMs });
    },
  };
}
