// What a signal does to a running server (docs/deploying.md): every way of starting a process asks this, so
// SIGTERM and Ctrl-C mean the same in `npm start`, `npm run dev` and each of several instances.
import { processLog, type Log } from '../log/logger';
import type { RunningServer } from './compose';

/**
 * Ends the process once the server has drained; a second signal ends it at once. One of several instances
 * hears SIGTERM from its primary only: Ctrl-C reaches the whole process group, and the primary passes it on.
 */
export function exitOnSignals(
  running: Pick<RunningServer, 'stop'> & Partial<Pick<RunningServer, 'log' | 'config'>>,
  { log = running.log ?? processLog, instance = false }: { log?: Log; instance?: boolean } = {},
): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    log(`${signal}: finishing the requests in flight, then exiting`, { event: 'shutdown.signal', signal });
    running.stop({ acceptMs: running.config?.shutdownGraceMs ?? 0 }).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', onSignal);
  if (instance) process.on('SIGINT', () => undefined);
  else process.on('SIGINT', onSignal);
}
