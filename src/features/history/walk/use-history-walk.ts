import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { walkHistory, type WalkActivity } from '../../../api/history-walk';
import { createWalkPace, type WalkPace } from '../../../api/walk-pace';

/** Where a walk through the history stands, as the page tells it. */
export type WalkStatus =
  | { phase: 'idle' }
  | { phase: 'walking'; activity: WalkActivity }
  /** Nothing left to load: the history's end, or past the start of the time range. */
  | { phase: 'done'; ended: 'end' | 'range' }
  /** The person pressed Stop. */
  | { phase: 'stopped' }
  /** A run's page limit: the person goes on. */
  | { phase: 'paused' }
  | { phase: 'failed'; error: unknown };

type Held = Extract<WalkStatus, { phase: 'stopped' | 'paused' | 'failed' }>;

export interface HistoryWalk {
  status: WalkStatus;
  stop: () => void;
  goOn: () => void;
}

interface WalkWish {
  /** Whether the history should be walked now (filters are set, or an export waits for it). */
  wanted: boolean;
  /** The history's first page is in: the walk goes on from its end. */
  ready: boolean;
  /** ISO time the walk need not go past (the time range's start). */
  from: string | undefined;
  /** What is being searched for (the filters' query string): a new search goes on even after a Stop. */
  search: string;
  /** Told when a walk has loaded all it needs (the export waiting for it writes its file then). */
  onEnded?: ((ended: 'end' | 'range') => void) | undefined;
}

const WALKING: WalkStatus = { phase: 'walking', activity: { kind: 'walking' } };

/**
 * Walks a project's history into its store while wanted, from where the loaded pages end, with Stop
 * and Go on. Pacing and 429s are the walk's own (api/walk-pace.ts); leaving the page stops it, and what
 * it loaded stays loaded. A new search, or a time range reaching further back, walks on from there.
 */
export function useHistoryWalk(projectId: string, { wanted, ready, from, search, onEnded }: WalkWish): HistoryWalk {
  const queryClient = useQueryClient();
  const [held, setHeld] = useState<Held | null>(null);
  const [generation, setGeneration] = useState(0);
  const [searched, setSearched] = useState(search);
  const [latest, setLatest] = useState<{ run: string; status: WalkStatus } | null>(null);
  const pace = useRef<WalkPace | null>(null);
  const ended = useRef(onEnded);
  useEffect(() => {
    ended.current = onEnded;
  });
  if (searched !== search) {
    setSearched(search);
    setHeld(null);
  }
  const run = `${projectId} ${generation} ${from ?? ''}`;

  useEffect(() => {
    if (!wanted || !ready || held) return;
    const controller = new AbortController();
    const report = (status: WalkStatus) => {
      if (!controller.signal.aborted) setLatest({ run, status });
    };
    pace.current ??= createWalkPace();
    walkHistory(queryClient, projectId, {
      from,
      signal: controller.signal,
      pace: pace.current,
      onActivity: (activity) => report({ phase: 'walking', activity }),
    }).then(
      (end) => {
        if (controller.signal.aborted) return;
        if (end === 'paused') {
          setHeld({ phase: 'paused' });
          return;
        }
        report({ phase: 'done', ended: end });
        ended.current?.(end);
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setHeld({ phase: 'failed', error });
      },
    );
    return () => controller.abort();
  }, [wanted, ready, held, from, projectId, queryClient, run]);

  const stop = useCallback(() => setHeld({ phase: 'stopped' }), []);
  const goOn = useCallback(() => {
    setHeld(null);
    setGeneration((g) => g + 1);
  }, []);

  const status: WalkStatus = !wanted ? { phase: 'idle' } : (held ?? (latest?.run === run ? latest.status : WALKING));
  return { status, stop, goOn };
}
