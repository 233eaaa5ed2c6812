import { useEffect, useRef, useState } from 'react';
import type { Operation } from '../../api/schemas';
import { humanizeAction } from '../../lib/format';
import { statusLabel } from '../../model/operation-status';

/** Tells screen readers when the status changes (not on first load), and shows it in the tab title. */
export function useStatusAnnouncement(operation: Operation | undefined): string {
  const [announcement, setAnnouncement] = useState('');
  const previous = useRef<string | undefined>(undefined);
  const status = operation?.status;
  const action = operation ? humanizeAction(operation.action) : undefined;

  useEffect(() => {
    if (status === undefined || action === undefined) return;
    const label = statusLabel(status);
    document.title = `${label} · ${action} · Ops Console`;
    if (previous.current !== undefined && previous.current !== status) {
      setAnnouncement(`${action}: status changed to ${label}.`);
    }
    previous.current = status;
  }, [status, action]);

  useEffect(() => () => void (document.title = 'Ops Console'), []);
  return announcement;
}
