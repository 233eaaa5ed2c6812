// The API backend the configuration names, and the simulator's demo key and world with it: unless SIM_API_KEY fixes
// one, the key is kept in DATA_DIR like the session secret, so an open tab and a kept archive key go on working
// across a restart; the world is kept there too (demo-world.ts), so its history holds still. A DATA_DIR that cannot
// keep them only means a new key, or a new world, each start.
import path from 'node:path';
import type { ServerConfig } from '../config';
import type { Log } from '../log/logger';
import type { Metrics } from '../ops/metrics';
import { createApiBackend, type ApiBackend } from '../proxy/api-backend';
import { DEMO_KEY_FILE, DEMO_KEY_MIN_LENGTH, keep, readKept } from '../store/kept-file';
import { keepDemoWorld, readDemoWorld } from './demo-world';

/** The forwarding proxy to API_URL, or the simulator with its demo key (SIM_API_KEY, else the one kept in DATA_DIR) and its kept world. */
export async function apiBackendOf(config: ServerConfig, log: Log, sent?: Metrics['apiSent']): Promise<ApiBackend> {
  const options = { simHugeProject: config.simHugeProject, simRateLimits: config.simRateLimits, log, ...(sent ? { sent } : {}) };
  if (config.apiUrl) return createApiBackend({ ...options, apiUrl: config.apiUrl });
  const dataDir = path.resolve(config.dataDir);
  const world = await readDemoWorld(dataDir, config.simHugeProject, log);
  const withWorld = (backend: ApiBackend): ApiBackend => {
    const { snapshot, worldSignature } = backend;
    if (!snapshot || !worldSignature) return backend;
    const keeper = keepDemoWorld(dataDir, config.simHugeProject, { snapshot, signature: worldSignature }, log);
    // Kept at once: a world seeded now is the one every later start restores.
    void keeper.save();
    return { ...backend, close: keeper.close };
  };
  if (config.simApiKey) return withWorld(createApiBackend({ ...options, simApiKey: config.simApiKey, world }));
  const kept = await readKept(dataDir, DEMO_KEY_FILE, DEMO_KEY_MIN_LENGTH).catch((error: unknown) => {
    log(`Simulator: the demo key kept in DATA_DIR cannot be read (${error instanceof Error ? error.message : String(error)}); making a new one`);
    return undefined;
  });
  const backend = createApiBackend({ ...options, simApiKey: kept, world });
  if (kept === undefined && backend.demoKey) {
    await keep(dataDir, DEMO_KEY_FILE, backend.demoKey, DEMO_KEY_MIN_LENGTH).catch((error: unknown) =>
      log(`Simulator: the demo key could not be kept in DATA_DIR (${error instanceof Error ? error.message : String(error)}); a restart makes a new one`),
    );
  }
  return withWorld(backend);
}
