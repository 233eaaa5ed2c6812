import { useEffect } from 'react';
import { describeSummary, type WatchSummary } from './watch-summary';

// Our prefix, recognised so it is replaced rather than stacked when screens set their own titles.
const PREFIX = /^\((\d+ (running|failed|finished)(, )?)+\) /;

const BADGE_COLOURS = { failed: '#cf222e', running: '#0969da', finished: '#1a7f37' } as const;

/** The console's icon with a round badge: the running count, "!" on a failure, "✓" when all ended. */
function badgeIcon({ running, failed }: WatchSummary): string {
  const tone = failed ? 'failed' : running ? 'running' : 'finished';
  const text = failed ? '!' : running ? (running > 9 ? '9+' : String(running)) : '✓';
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
    '<rect width="32" height="32" rx="6" fill="#0b6e4f"/>' +
    '<path d="M8 16h5l3-7 3 14 3-7h3" fill="none" stroke="#fff" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round"/>' +
    `<circle cx="22" cy="10" r="10" fill="${BADGE_COLOURS[tone]}" stroke="#fff" stroke-width="1.5"/>` +
    `<text x="22" y="14.5" font-family="system-ui,sans-serif" font-size="${text.length > 1 ? 10 : 13}" font-weight="700" text-anchor="middle" fill="#fff">${text}</text>` +
    '</svg>';
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/**
 * Shows the watch list in the tab: a title prefix like "(2 running, 1 finished)" and a badge on the
 * favicon, so a person in another tab sees when work ends. Restored when the list empties.
 */
export function useTabBadge(summary: WatchSummary): void {
  const { running, failed, finished } = summary;
  useEffect(() => {
    const counts = { running, failed, finished };
    const text = describeSummary(counts);
    const prefix = text ? `(${text}) ` : '';
    const apply = () => {
      const next = prefix + document.title.replace(PREFIX, '');
      if (document.title !== next) document.title = next;
    };
    apply();
    // Screens set their own titles (the detail screen shows its status): keep the prefix on them.
    const titleElement = document.querySelector('title');
    const observer = titleElement ? new MutationObserver(apply) : null;
    if (titleElement) observer?.observe(titleElement, { childList: true, characterData: true, subtree: true });

    const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    const original = icon?.getAttribute('href') ?? null;
    if (icon && text) icon.setAttribute('href', badgeIcon(counts));
    return () => {
      observer?.disconnect();
      document.title = document.title.replace(PREFIX, '');
      if (icon && original !== null) icon.setAttribute('href', original);
    };
  }, [running, failed, finished]);
}
