import { useEffect } from 'react';

export const APP_TITLE = 'Ops Console';

/** "acme-analytics-prod · Operations · Ops Console": the page's own parts, most specific first. */
export function documentTitle(...parts: readonly (string | undefined)[]): string {
  return [...parts.filter((part): part is string => Boolean(part)), APP_TITLE].join(' · ');
}

/** Sets the tab's title for the screen on show (history, bookmarks and screen readers name the page by it). */
export function useDocumentTitle(...parts: readonly (string | undefined)[]): void {
  const title = documentTitle(...parts);
  useEffect(() => {
    document.title = title;
  }, [title]);
}
