// What answers `/api/v2` on the console's own origin: the seeded in-process simulator, or, with API_URL
// set, the forwarding proxy (and then no simulator at all). The one place that mounts sim/.
import { randomBytes } from 'node:crypto';
import { systemClock } from '../../sim/clock';
import { createControlPlane, type WorldSnapshot } from '../../sim/control-plane';
import { createFaultControl, createFaultInjector } from '../../sim/faults';
import { createHandlers } from '../../sim/handlers';
import { seededRandom, type Random } from '../../sim/random';
import { DEMO_USER_EMAIL, seedDemo } from '../../sim/seed';
import { apiOutage, createForwardFetch, createForwardServe, type ForwardServe, type UpstreamLog } from './forward-proxy';
import type { ApiFetch, NodeHandler } from '../http/node-bridge';
import { API_PREFIX } from '../http/paths';
import { createSimulatorFetch } from './simulator-fetch';

/** The demo world's seed (the control plane's own default): the same projects, branches and history at every start. */
const DEMO_SEED = 0x5eed;

export interface ApiBackend {
  fetch: ApiFetch;
  /** The forwarding proxy's own way to answer `/api/v2` on the console's origin (Node streams end to end); the simulator has none. */
  serve?: ForwardServe;
  /** The simulator's fault plan control route (sim/faults.ts); never with the forwarding proxy. */
  faultControl?: NodeHandler;
  /** Start-up banner lines: the mode, and how to use it. */
  banner: string[];
  /** The simulator's demo API key (none in front of a real API). */
  demoKey?: string;
  /** The simulator's whole world as data (server/process/demo-world.ts keeps it in DATA_DIR); none in front of a real API. */
  snapshot?: () => WorldSnapshot;
  /** Changes whenever `snapshot` would hold something new: the keeper asks it before taking one. */
  worldSignature?: () => string;
  /** Called when the server stops (the demo world's last save). */
  close?: () => Promise<void>;
}

export interface ApiBackendOptions {
  apiUrl?: string | undefined;
  simApiKey?: string | undefined;
  /** Operations in the simulator's huge project (SIM_HUGE_PROJECT); 0, none. */
  simHugeProject?: number;
  /** False: no platform rate limits in the simulator (the bench's load test). */
  simRateLimits?: boolean;
  /** Where the proxy reports an API it cannot reach. */
  log?: UpstreamLog;
  /** Each call sent to the API (the simulator's or API_URL's), with the status it answered (0: none): metrics count them. */
  sent?: (status: number) => void;
  /** The simulator's world as a previous start left it (DATA_DIR): restored instead of seeded, so its history holds still. */
  world?: WorldSnapshot | undefined;
}

export function createApiBackend({ apiUrl, simApiKey, simHugeProject = 0, simRateLimits = true, log, sent, world }: ApiBackendOptions): ApiBackend {
  if (apiUrl) {
    // One outage of this API however it is called: the pages' calls and the server's own reads.
    const proxy = { apiUrl, ...(log ? { log, outage: apiOutage(log, apiUrl) } : {}), ...(sent ? { sent } : {}) };
    return {
      fetch: createForwardFetch(proxy),
      serve: createForwardServe(proxy),
      banner: ['Mode: forwarding proxy (no simulator)', `Forwarding ${API_PREFIX} to ${apiUrl}`],
    };
  }
  // A new demo world is the same at every first start (its seed); one a previous start kept is restored as it was
  // (its operations' ids and times, the branches people made). What happens afterwards is drawn afresh each start,
  // so an operation started after a restart never reuses an id the archive or a webhook saw before.
  let draw: Random = seededRandom(DEMO_SEED);
  const controlPlane = createControlPlane({ clock: systemClock(), random: () => draw() });
  let apiKey: string;
  if (world) {
    draw = seededRandom(randomBytes(4).readUInt32LE(0));
    controlPlane.restore(world);
    apiKey = keyOfRestoredWorld(controlPlane, simApiKey);
  } else {
    // SIM_HUGE_PROJECT adds a project with that many operations (the scale tests and bench); off by default, it slows start-up.
    apiKey = seedDemo(controlPlane, { apiKey: simApiKey || undefined, hugeProject: simHugeProject }).apiKey;
    draw = seededRandom(randomBytes(4).readUInt32LE(0));
  }
  // Off until someone sets a plan through the control route (which the server decides to mount).
  const faults = createFaultInjector();
  const simulator = createSimulatorFetch(createHandlers(controlPlane, { faults, ...(simRateLimits ? {} : { rateLimits: false as const }) }));
  return {
    fetch: sent
      ? async (call) => {
          const response = await simulator(call);
          sent(response.type === 'error' ? 0 : response.status);
          return response;
        }
      : simulator,
    faultControl: createFaultControl(faults),
    banner: ['Mode: built-in simulator (set API_URL to use a real API)', `Demo API key: ${apiKey}`],
    demoKey: apiKey,
    snapshot: () => controlPlane.snapshot(),
    worldSignature: () => controlPlane.signature(),
  };
}

/** The demo key of a restored world: `simApiKey` (issued to Demo User when the world does not know it yet), else a new one. */
function keyOfRestoredWorld(controlPlane: ReturnType<typeof createControlPlane>, simApiKey: string | undefined): string {
  if (simApiKey && controlPlane.authenticate(simApiKey)) return simApiKey;
  const demoUser = controlPlane.snapshot().users.find((user) => user.email === DEMO_USER_EMAIL);
  if (!demoUser) throw new Error('the kept demo world has no Demo User');
  return controlPlane.issueApiKey({ kind: 'personal', userId: demoUser.id }, 'demo-console', simApiKey || undefined).secret;
}
