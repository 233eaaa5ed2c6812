// Loaded into the console's server by the bench's load test (node --expose-gc --import): on SIGUSR2, a full
// garbage collection, then the live heap written to the file BENCH_HEAP_FILE names. Resident memory also
// counts the heap V8 keeps reserved after a burst; what is still live after a collection is what would leak.
import { renameSync, writeFileSync } from 'node:fs';

process.on('SIGUSR2', () => {
  globalThis.gc?.();
  const file = process.env.BENCH_HEAP_FILE;
  if (!file) return;
  // Written aside, then renamed: the bench never reads a half-written file.
  writeFileSync(`${file}.part`, JSON.stringify({ heapUsed: process.memoryUsage().heapUsed, at: Date.now() }));
  renameSync(`${file}.part`, file);
});
