import type { ComponentType } from 'react';

/** A screen whose code loads on demand, remembered once in so it can render without a fallback. */
export interface ScreenModule {
  /** The screen's source file, as the build's manifest names it (the server preloads its chunks). */
  readonly source: string;
  /** The screen, once its code has arrived. */
  readonly loaded: ComponentType | undefined;
  /** Loads the code (once; a failed load may be tried again). */
  load: () => Promise<ComponentType>;
}

function screenModule(source: string, importScreen: () => Promise<ComponentType>): ScreenModule {
  let loaded: ComponentType | undefined;
  return {
    source,
    get loaded() {
      return loaded;
    },
    load: async () => (loaded ??= await importScreen()),
  };
}

// The screens not needed at first paint, each behind one import(), so the router (routes.tsx), a deep
// link's early start (early-start.ts) and the server's render load and remember the very same code.
// Code only: the same in every request the server renders.
export const screenModules = {
  projects: screenModule('src/screens/projects/projects-screen.tsx', async () => (await import('../screens/projects/projects-screen')).ProjectsScreen),
  project: screenModule('src/screens/project/project-screen.tsx', async () => (await import('../screens/project/project-screen')).ProjectScreen),
  operation: screenModule('src/screens/operation/operation-detail-screen.tsx', async () => (await import('../screens/operation/operation-detail-screen')).OperationDetailScreen),
  activity: screenModule('src/screens/activity/activity-screen.tsx', async () => (await import('../screens/activity/activity-screen')).ActivityScreen),
  archive: screenModule('src/screens/archive/archive-screen.tsx', async () => (await import('../screens/archive/archive-screen')).ArchiveScreen),
  notifications: screenModule('src/screens/notifications/notifications-screen.tsx', async () => (await import('../screens/notifications/notifications-screen')).NotificationsScreen),
  apiKeys: screenModule('src/screens/api-keys/api-keys-screen.tsx', async () => (await import('../screens/api-keys/api-keys-screen')).ApiKeysScreen),
};
