import type { ComponentType } from 'react';

/** A screen whose code loads on demand, remembered once in so it can render without a fallback. */
export interface ScreenModule {
  /** The screen, once its code has arrived. */
  readonly loaded: ComponentType | undefined;
  /** Loads the code (once; a failed load may be tried again). */
  load: () => Promise<ComponentType>;
}

function screenModule(importScreen: () => Promise<ComponentType>): ScreenModule {
  let loaded: ComponentType | undefined;
  return {
    get loaded() {
      return loaded;
    },
    load: async () => (loaded ??= await importScreen()),
  };
}

// The screens not needed at first paint, each behind one import(), so the router (routes.tsx) and a
// deep link's early start (early-start.ts) load and remember the very same code.
export const screenModules = {
  projects: screenModule(async () => (await import('../screens/projects/projects-screen')).ProjectsScreen),
  project: screenModule(async () => (await import('../screens/project/project-screen')).ProjectScreen),
  operation: screenModule(async () => (await import('../screens/operation/operation-detail-screen')).OperationDetailScreen),
  apiKeys: screenModule(async () => (await import('../screens/api-keys/api-keys-screen')).ApiKeysScreen),
};
