import type { Plugin } from 'vite';

// Placeholder until the simulator lands: mounts nothing.
export function opsConsole(): Plugin {
  return { name: 'ops-console' };
}
