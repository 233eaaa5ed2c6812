import { useId, type MouseEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import type { InsightRange } from '../../api/insights-schemas';
import { historyHref, rangeFilters, WINDOW_NAMES, type BucketUnit } from '../../model/insight-figures';
import { formatCount } from '../../lib/format';
import { choiceClass, shownChoices, type ChartBucket } from './chart-series';

const WIDTH = 960;
const HEIGHT = 240;
const LEFT = 44;
const RIGHT = 8;
const TOP = 12;
const BOTTOM = 30;
const MAX_LABELS = 8;

/** The axis' top: the largest count, rounded up to 1, 2 or 5 times a power of ten (small counts as they are). */
export function axisTop(largest: number): number {
  if (largest <= 5) return Math.max(1, largest);
  const power = 10 ** Math.floor(Math.log10(largest));
  const step = [1, 2, 5, 10].find((m) => m * power >= largest) ?? 10;
  return step * power;
}

const isPlainClick = (event: MouseEvent) => event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;

/** "412 operations: 380 OK, 12 Error, 20 Cancelled". */
export function describeCounts(counts: Record<string, number>, choices: readonly string[]): string {
  const total = choices.reduce((sum, choice) => sum + (counts[choice] ?? 0), 0);
  const parts = choices.filter((choice) => (counts[choice] ?? 0) > 0).map((choice) => `${formatCount(counts[choice] ?? 0)} ${choice}`);
  return `${formatCount(total)} ${total === 1 ? 'operation' : 'operations'}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`;
}

interface StatusChartProps {
  projectId: string;
  range: InsightRange;
  unit: BucketUnit;
  buckets: readonly ChartBucket[];
}

/**
 * Operations per day (per hour over 24 hours) by status, drawn as SVG: rendered on the server with the page,
 * so it shows, and its bars link, without scripts. Each bar is a link to that day's history; a segment's look
 * (solid, hatched, outlined, dotted) tells its status as well as its colour, and the legend and the table below
 * say the same in words.
 */
export function StatusChart({ projectId, range, unit, buckets }: StatusChartProps) {
  const id = useId().replace(/[^A-Za-z0-9_-]/g, '');
  const navigate = useNavigate();
  const choices = shownChoices(buckets);
  const top = axisTop(Math.max(0, ...buckets.map((b) => b.total)));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(1, buckets.length);
  const barWidth = Math.max(1, slot * 0.75);
  const y = (count: number) => TOP + plotHeight - (count / top) * plotHeight;
  const labelEvery = Math.ceil(buckets.length / MAX_LABELS);
  const totals: Record<string, number> = {};
  for (const bucket of buckets) for (const [choice, count] of Object.entries(bucket.counts)) totals[choice] = (totals[choice] ?? 0) + count;
  const per = unit === 'day' ? 'day' : 'hour';
  // An attribute, not a style: the page's CSP allows no inline style, and the page draws this without scripts.
  const fillOf = (choice: string) => (choice === 'Error' ? `url(#${id}-hatch)` : undefined);
  const title = `Operations per ${per} by status, ${WINDOW_NAMES[range.window]} (UTC)`;

  const open = (event: MouseEvent, href: string) => {
    if (!isPlainClick(event)) return;
    event.preventDefault();
    void navigate(href);
  };

  return (
    <figure className="insights-chart">
      <figcaption className="insights-chart__legend muted small">
        {choices.map((choice) => (
          <span key={choice} className="insights-chart__key">
            <svg width="14" height="12" aria-hidden="true" focusable="false">
              <rect className={`ic-seg ic-seg--${choiceClass(choice)}`} x="1" y="1" width="12" height="10" fill={fillOf(choice)} />
            </svg>{' '}
            {choice}
          </span>
        ))}
        <span> · each bar links to that {per}’s history</span>
      </figcaption>
      <div className="insights-chart__scroll">
        {/* SVG's own role, a graphics document: named by its title, it holds the bars' links, which an img (whose children are
            presentational) would hide from assistive technology (axe: nested-interactive). Browser tests read it as an image. */}
        <svg
          className="insights-chart__svg"
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          width="100%"
          role="graphics-document"
          aria-labelledby={`${id}-title`}
          aria-describedby={`${id}-desc`}
        >
          <title id={`${id}-title`}>{title}</title>
          <desc id={`${id}-desc`}>{describeCounts(totals, choices)}.</desc>
          <defs>
            <pattern id={`${id}-hatch`} className="ic-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <rect width="6" height="6" />
              <line x1="0" y1="0" x2="0" y2="6" />
            </pattern>
          </defs>
          <g aria-hidden="true" className="ic-axis">
            {[0, top / 2, top]
              .filter((tick) => Number.isInteger(tick))
              .map((tick) => (
                <g key={tick}>
                  <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(tick)} y2={y(tick)} />
                  <text x={LEFT - 6} y={y(tick) + 4} textAnchor="end">
                    {formatCount(tick)}
                  </text>
                </g>
              ))}
            {buckets.map((bucket, i) =>
              i % labelEvery === 0 ? (
                <text key={bucket.from} x={LEFT + i * slot + slot / 2} y={HEIGHT - 10} textAnchor="middle">
                  {unit === 'day' ? bucket.name.split(' from ')[0]?.split(' until ')[0] : bucket.name.slice(bucket.name.lastIndexOf(' ') + 1)}
                </text>
              ) : null,
            )}
          </g>
          {buckets.map((bucket, i) => {
            if (bucket.total === 0) return null;
            const href = historyHref(projectId, rangeFilters(bucket));
            const label = `${bucket.name}: ${describeCounts(bucket.counts, choices)}`;
            const x = LEFT + i * slot + (slot - barWidth) / 2;
            let below = 0;
            return (
              <a key={bucket.from} href={href} className="ic-bar" aria-label={label} onClick={(event) => open(event, href)}>
                <title>{label}</title>
                <rect className="ic-bar__hit" x={LEFT + i * slot} y={TOP} width={slot} height={plotHeight} />
                {choices.map((choice) => {
                  const count = bucket.counts[choice] ?? 0;
                  if (count === 0) return null;
                  const bottom = y(below);
                  below += count;
                  return (
                    <rect
                      key={choice}
                      className={`ic-seg ic-seg--${choiceClass(choice)}`}
                      x={x}
                      y={y(below)}
                      width={barWidth}
                      height={Math.max(0.5, bottom - y(below))}
                      fill={fillOf(choice)}
                    />
                  );
                })}
              </a>
            );
          })}
        </svg>
      </div>
    </figure>
  );
}
