// The history archive arranged for real: the held session's key kept through the console server's own route
// (what "Keep history" sends), and the server's collector left to read the simulator; a test waits for the
// state the archive's routes then give (the archive page shows the same). Requests of the test's own: MSW does
// not see them, so they are never counted as the page's.
import {
  ArchivedOperationsPageSchema,
  ArchiveSourcesSchema,
  archiveOperationsPath,
  ARCHIVE_SOURCES_PATH,
  type ArchiveSource,
} from '../../src/api/archive-schemas';
import type { ConsoleServer } from './console-server';

const realSetTimeout = globalThis.setTimeout;
const WAIT_MS = 20_000;

async function until<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const found = await read();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`The archive did not get there within ${WAIT_MS / 1_000} s: ${what}`);
    await new Promise((resolve) => realSetTimeout(resolve, 50));
  }
}

async function ownSource(server: ConsoleServer): Promise<ArchiveSource | undefined> {
  const response = await server.request(ARCHIVE_SOURCES_PATH);
  if (!response.ok) throw new Error(`GET ${ARCHIVE_SOURCES_PATH}: HTTP ${response.status}`);
  return ArchiveSourcesSchema.parse(await response.json()).sources.find((source) => source.isOwnKey);
}

/**
 * Keeps the held session's key as a source (POST /archive/sources, as "Keep history" does) and waits until the
 * collector has read what it reaches to its end (`following`, the archive page's "Following"), or only until it
 * has listed `projects` of them (`listed`: the histories may still be read).
 */
export async function keepHistory(
  server: ConsoleServer,
  wait: { until: 'following' } | { until: 'listed'; projects: number } = { until: 'following' },
): Promise<ArchiveSource> {
  const kept = await server.request(ARCHIVE_SOURCES_PATH, { method: 'POST' });
  if (!kept.ok) throw new Error(`POST ${ARCHIVE_SOURCES_PATH}: HTTP ${kept.status}`);
  return until(wait.until === 'following' ? 'the kept key followed' : `${wait.projects} project(s) listed`, async () => {
    const source = await ownSource(server);
    if (source?.state === 'disabled') throw new Error(`The archive stopped reading with the kept key: ${source.lastError ?? ''}`);
    if (!source) return undefined;
    return (wait.until === 'following' ? source.state === 'following' : source.projects >= wait.projects) ? source : undefined;
  });
}

/** Waits until the archive keeps `operationId` as one the API no longer lists (its whole read of the project found it gone). */
export async function waitUntilKept(server: ConsoleServer, projectId: string, operationId: string): Promise<void> {
  await until(`${operationId} kept`, async () => {
    const response = await server.request(`${archiveOperationsPath(projectId)}?q=${encodeURIComponent(operationId)}`);
    if (!response.ok) return undefined;
    // Until the collector has listed the project, the archive answers that it does not cover it.
    const page = ArchivedOperationsPageSchema.safeParse(await response.json()).data;
    return page?.operations.some((op) => op.id === operationId && op.keptSince !== undefined) ? true : undefined;
  });
}
