import type { ComponentType } from 'react';
import { codeModule, type CodeModule } from '../lib/code-module';
import { projectTimeline } from '../screens/project/project-timeline-module';

/** A screen whose code loads on demand. */
export interface ScreenModule extends CodeModule<ComponentType> {
  /**
   * Code the screen loads apart from its own (after its first rows, when the browser draws it), which a
   * server-rendered copy of the screen shows at once: loaded (and preloaded) with the screen there.
   */
  readonly alongside: readonly CodeModule<unknown>[];
}

/** The screen's code and what its server-rendered HTML shows besides: what the browser has before taking that HTML over. */
export function loadRendered(screen: ScreenModule): Promise<unknown> {
  return Promise.all([screen.load(), ...screen.alongside.map((code) => code.load())]);
}

/** The source files of `loadRendered`'s code, for the server to preload. */
export function renderedSources(screen: ScreenModule): readonly string[] {
  return [screen.source, ...screen.alongside.map((code) => code.source)];
}

function screenModule(source: string, importScreen: () => Promise<ComponentType>, alongside: readonly CodeModule<unknown>[] = []): ScreenModule {
  return Object.assign(codeModule(source, importScreen), { alongside });
}

// The screens not needed at first paint, each behind one import(), so the router (routes.tsx), a deep
// link's early start (early-start.ts) and the server's render load and remember the very same code.
// Code only: the same in every request the server renders.
export const screenModules = {
  projects: screenModule('src/screens/projects/projects-screen.tsx', async () => (await import('../screens/projects/projects-screen')).ProjectsScreen),
  project: screenModule('src/screens/project/project-screen.tsx', async () => (await import('../screens/project/project-screen')).ProjectScreen, [projectTimeline]),
  operation: screenModule('src/screens/operation/operation-detail-screen.tsx', async () => (await import('../screens/operation/operation-detail-screen')).OperationDetailScreen),
  activity: screenModule('src/screens/activity/activity-screen.tsx', async () => (await import('../screens/activity/activity-screen')).ActivityScreen),
  archive: screenModule('src/screens/archive/archive-screen.tsx', async () => (await import('../screens/archive/archive-screen')).ArchiveScreen),
  notifications: screenModule('src/screens/notifications/notifications-screen.tsx', async () => (await import('../screens/notifications/notifications-screen')).NotificationsScreen),
  apiKeys: screenModule('src/screens/api-keys/api-keys-screen.tsx', async () => (await import('../screens/api-keys/api-keys-screen')).ApiKeysScreen),
};
