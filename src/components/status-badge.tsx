import { statusLabel, statusTone } from '../model/operation-status';

/**
 * The status label with a tone; each tone also draws its own shape (CSS ::before, hidden from
 * assistive technology) so status never rests on colour alone, and the text is exactly the label.
 */
export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`status status--${statusTone(status)}`} data-status={status}>
      {statusLabel(status)}
    </span>
  );
}
