// Loaded into the console's server processes by the bench's load test (node --expose-gc --import; cluster
// workers inherit it): on SIGUSR2, a full garbage collection, then the live heap written to
// BENCH_HEAP_FILE with the process id appended. Resident memory also counts the heap V8 keeps reserved
// after a burst; what is still live after a collection is what would leak.
import { renameSync, writeFileSync } from 'node:fs';

process.on('SIGUSR2', () => {
  globalThis.gc?.();
  const file = process.env.BENCH_HEAP_FILE;
  if (!file) return;
  const own = `${file}.${process.pid}`;
  // Written aside, then renamed: the bench never reads a half-written file.
  writeFileSync(`${own}.part`, JSON.stringify({ heapUsed: process.memoryUsage().heapUsed, at: Date.now() }));
  renameSync(`${own}.part`, own);
});
