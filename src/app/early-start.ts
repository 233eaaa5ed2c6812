import type { QueryClient } from '@tanstack/react-query';
import type { KeyKind } from '../api/page-data';
import { firstScreenOf } from './first-screen';
import { screenModules } from './screen-modules';

// A failed early request is left in the cache as it is; the screen shows it (and retries) as usual.
const noop = () => undefined;

/**
 * The first thing a signed-in page does, before the app's own code (React DOM, the router's
 * screens) has arrived: starts the first requests of the screen at `url` (a path, with its query) in
 * the app's query client, and that screen's code, side by side. Data a server-rendered page brought
 * along is fresh in the cache and not asked for again. Returns the code's loading (for the first
 * render to wait on), null when there is nothing to start.
 */
export function startEarly(url: string, queryClient: QueryClient, keyKind: KeyKind | null = null): Promise<unknown> | null {
  const first = firstScreenOf(url, keyKind);
  if (!first) return null;
  for (const started of first.load(queryClient)) started.catch(noop);
  // Over the server's HTML, all the code that HTML shows comes before the browser takes it over (code-module.tsx):
  // a screen's code includes what it shows besides (screen-modules.ts).
  return screenModules[first.screen].load();
}
