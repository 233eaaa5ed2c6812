import { useEffect, useState } from 'react';
import { describeSettled } from './notify';
import type { WatchStore } from './watch-store';

/** The latest "Create branch: OK" news, for a polite live region; never announced on load. */
export function useSettledAnnouncement(store: WatchStore): string {
  const [announcement, setAnnouncement] = useState('');
  useEffect(
    () =>
      store.onSettled((events) => {
        setAnnouncement(
          events
            .map((event) => {
              const { title, body } = describeSettled(event);
              return `${title}, ${body}.`;
            })
            .join(' '),
        );
      }),
    [store],
  );
  return announcement;
}
