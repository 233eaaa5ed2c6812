import { createContext } from 'react';

/**
 * When the page's HTML was rendered on the server (epoch ms), or null for a page rendered in the
 * browser. Whatever reads the clock renders from it on the server and while hydrating that HTML, so
 * "5 minutes ago" and live durations read the same on both sides; afterwards they read the clock.
 */
export const RenderTimeContext = createContext<number | null>(null);
