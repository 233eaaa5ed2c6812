import type { MouseEvent } from 'react';
import type { StatusTone } from '../../../model/operation-status';
import { MARK_ARROW, MARK_BAR, MARK_DIAMOND, MARK_MIN_WIDTH } from './timeline-layout';

interface TimelineMarkProps {
  href: string;
  label: string;
  x1: number;
  x2: number;
  /** Vertical centre of the lane. */
  y: number;
  tone: StatusTone;
  live: boolean;
  onOpen: (event: MouseEvent, href: string) => void;
}

/**
 * One operation as a link drawn from its start to its end. Shape says the outcome as well as colour:
 * a filled bar is OK, a diamond at its start an error, an arrowhead at its end work still in flight,
 * an outline a cancelled or skipped one.
 */
export function TimelineMark({ href, label, x1, x2, y, tone, live, onOpen }: TimelineMarkProps) {
  const width = Math.max(MARK_MIN_WIDTH, x2 - x1);
  const top = y - MARK_BAR / 2;
  const d = MARK_DIAMOND;
  return (
    <a href={href} aria-label={label} className={`tl-mark tl-mark--${tone}`} onClick={(event) => onOpen(event, href)}>
      <title>{label}</title>
      <rect className="tl-mark__bar" x={x1} y={top} width={width} height={MARK_BAR} rx={tone === 'success' ? 3 : 0} />
      {tone === 'danger' && <path className="tl-mark__shape" d={`M${x1} ${y - d}L${x1 + d} ${y}L${x1} ${y + d}L${x1 - d} ${y}Z`} />}
      {live && <path className="tl-mark__shape" d={`M${x1 + width} ${y - d}L${x1 + width + MARK_ARROW} ${y}L${x1 + width} ${y + d}Z`} />}
    </a>
  );
}
