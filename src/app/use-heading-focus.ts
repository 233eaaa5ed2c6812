import { useEffect, useRef } from 'react';

/** How long after a route change the new page's heading may take to appear (its code or data loading). */
const HEADING_WAIT_MS = 10_000;

/**
 * After a route change (not on first load), moves focus to the new page's `<h1>` so keyboard and
 * screen-reader users follow: at once if it is there, otherwise as soon as it appears (a screen whose
 * code loads on demand renders it a moment later).
 */
export function useHeadingFocus(pathname: string): void {
  const firstRender = useRef(true);
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    const main = document.querySelector('main');
    if (!main) return;
    // Focus where it was at the route change: if the person moves it meanwhile, their choice stands.
    const focusedBefore = document.activeElement;
    const focusHeading = () => {
      if (document.activeElement !== focusedBefore && document.activeElement !== document.body) return true;
      const heading = main.querySelector<HTMLElement>('h1');
      if (!heading) return false;
      heading.focus();
      return true;
    };
    let frame = requestAnimationFrame(() => {
      if (focusHeading()) observer.disconnect();
    });
    const observer = new MutationObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        if (focusHeading()) observer.disconnect();
      });
    });
    observer.observe(main, { childList: true, subtree: true });
    const stop = setTimeout(() => observer.disconnect(), HEADING_WAIT_MS);
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(stop);
      observer.disconnect();
    };
  }, [pathname]);
}
