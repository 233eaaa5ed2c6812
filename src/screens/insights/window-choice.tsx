import { Link, useSearchParams } from 'react-router-dom';
import type { TimeRange } from '../../api/insights-schemas';
import { DateTime } from '../../components/date-time';
import { INSIGHT_WINDOWS, insightWindowOf, type InsightWindow } from '../../config/insight-windows';

const LABELS: Record<InsightWindow, string> = { '24h': '24 hours', '7d': '7 days', '30d': '30 days', '90d': '90 days' };

/** The window in the page's address (`?window=30d`), the default for anything else. */
export function useInsightWindow(): InsightWindow {
  const [search] = useSearchParams();
  return insightWindowOf(search.get('window'));
}

/** The windows as links (they work without scripts), the current one marked as the page; once counted, its exact range. */
export function WindowChoice({ current, hrefOf, range }: { current: InsightWindow; hrefOf: (window: InsightWindow) => string; range: TimeRange | undefined }) {
  return (
    <nav aria-label="Window" className="insights-windows">
      <span className="muted">Window:</span>
      <ul>
        {INSIGHT_WINDOWS.map((window) => (
          <li key={window}>
            <Link to={hrefOf(window)} aria-current={window === current ? 'page' : undefined}>
              {LABELS[window]}
            </Link>
          </li>
        ))}
      </ul>
      {range && (
        <span className="muted small">
          from <DateTime iso={range.from} /> to <DateTime iso={range.to} />
        </span>
      )}
    </nav>
  );
}
