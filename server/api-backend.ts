// What answers `/api/v2` on the console's own origin: the seeded in-process simulator, or, with API_URL
// set, the forwarding proxy (and then no simulator at all). vite-plugin.ts loads this module through
// Vite's module runner, so loading vite.config.ts (dev, preview, vitest) never pulls the simulator in.
import { systemClock } from '../sim/clock';
import { createControlPlane } from '../sim/control-plane';
import { createForwardProxy } from './forward-proxy';
import { createFaultControl, createFaultInjector } from '../sim/faults';
import { createHandlers } from '../sim/handlers';
import { API_PREFIX, createSimulatorHandler, type NodeHandler } from './node-adapter';
import { seedDemo } from '../sim/seed';

export interface ApiBackend {
  handle: NodeHandler;
  /** The simulator's fault plan control route (sim/faults.ts); never with the forwarding proxy. */
  faultControl?: NodeHandler;
  /** Start-up banner lines: the mode, and how to use it. */
  banner: string[];
}

export function createApiBackend(env: { API_URL?: string; SIM_API_KEY?: string; SIM_HUGE_PROJECT?: string }): ApiBackend {
  const apiUrl = env.API_URL?.trim();
  if (apiUrl) {
    return {
      handle: createForwardProxy({ apiUrl }),
      banner: ['Mode: forwarding proxy (no simulator)', `Forwarding ${API_PREFIX} to ${apiUrl}`],
    };
  }
  const controlPlane = createControlPlane({ clock: systemClock() });
  // SIM_HUGE_PROJECT=1 adds a project with 20,000 operations (the scale test and bench); off by default, it slows start-up.
  const { apiKey } = seedDemo(controlPlane, { apiKey: env.SIM_API_KEY || undefined, hugeProject: env.SIM_HUGE_PROJECT === '1' });
  // Off until someone sets a plan through the control route (which vite-plugin.ts decides to mount).
  const faults = createFaultInjector();
  return {
    handle: createSimulatorHandler(createHandlers(controlPlane, { faults })),
    faultControl: createFaultControl(faults),
    banner: ['Mode: built-in simulator (set API_URL to use a real API)', `Demo API key: ${apiKey}`],
  };
}
