import type { MouseEvent } from 'react';
import type { StatusTone } from '../../../lib/operation-status';

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

const BAR = 12;
const MIN_WIDTH = 6;

/**
 * One operation as a link drawn from its start to its end. Shape says the outcome as well as colour:
 * a filled bar is OK, a diamond at its start an error, an arrowhead at its end work still in flight,
 * an outline a cancelled or skipped one.
 */
export function TimelineMark({ href, label, x1, x2, y, tone, live, onOpen }: TimelineMarkProps) {
  const width = Math.max(MIN_WIDTH, x2 - x1);
  const top = y - BAR / 2;
  return (
    <a href={href} aria-label={label} className={`tl-mark tl-mark--${tone}`} onClick={(event) => onOpen(event, href)}>
      <title>{label}</title>
      <rect className="tl-mark__bar" x={x1} y={top} width={width} height={BAR} rx={tone === 'success' ? 3 : 0} />
      {tone === 'danger' && <path className="tl-mark__shape" d={`M${x1} ${y - 8}L${x1 + 8} ${y}L${x1} ${y + 8}L${x1 - 8} ${y}Z`} />}
      {live && <path className="tl-mark__shape" d={`M${x1 + width} ${y - 8}L${x1 + width + 9} ${y}L${x1 + width} ${y + 8}Z`} />}
    </a>
  );
}
