import { statusLabel, statusTone, type StatusTone } from '../lib/operation-status';

// A shape per tone so status never rests on colour alone; the label carries the meaning.
const ICONS: Record<StatusTone, string> = {
  pending: '◷',
  progress: '↻',
  success: '✓',
  danger: '✕',
  neutral: '–',
};

export function StatusBadge({ status }: { status: string }) {
  const tone = statusTone(status);
  return (
    <span className={`status status--${tone}`} data-status={status}>
      <span className="status__icon" aria-hidden="true">
        {ICONS[tone]}
      </span>
      {statusLabel(status)}
    </span>
  );
}
