import { useSyncExternalStore } from 'react';

const never = () => () => undefined;

/**
 * False while React renders on the server and while it takes the server's HTML over in the browser
 * (so that render matches the HTML sent), true from the render after that, and from the first render
 * of a page the browser drew itself. A control with a form of its own for pages read without script
 * (a `<details>` of checkboxes) shows that form until then.
 */
export function useTakenOver(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
