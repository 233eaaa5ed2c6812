import type { ComponentType } from 'react';
import { codeModule, type CodeModule } from '../lib/code-module';
import { projectTimeline } from '../screens/project/project-timeline-module';

/** A screen whose code loads on demand. */
export interface ScreenModule extends CodeModule<ComponentType> {
  /**
   * Code of its own that the screen shows besides (the project's timeline, above its table): loaded with
   * the screen, and preloaded with it by the server.
   */
  readonly alongside: readonly CodeModule<unknown>[];
}

/**
 * The key screen: not in the first load of a signed-in page (most pages), so its code loads on demand too. A
 * signed-out page loads it before it renders (main.tsx), its server preloads it (server/pages/server-render.ts),
 * and a signed-in page fetches it once it has drawn (session-gate.tsx), so a sign-out never waits for it.
 */
export const keyScreen = codeModule('src/screens/sign-in/sign-in-screen.tsx', async () => (await import('../screens/sign-in/sign-in-screen')).SignInScreen);

/** The source files of a screen's code, what it shows besides included, for the server to preload. */
export function renderedSources(screen: ScreenModule): readonly string[] {
  return [screen.source, ...screen.alongside.map((code) => code.source)];
}

/**
 * A screen's code is its own and what it shows besides, loaded together wherever the screen is loaded
 * (the router, a deep link's early start, the server's render): a part drawn in after the rest, above
 * the rows, would push them down under the pointer (the project's timeline did, 171 px, ~400 ms after
 * its table, and a click aimed at a row landed elsewhere). Both chunks load side by side.
 */
function screenModule(source: string, importScreen: () => Promise<ComponentType>, alongside: readonly CodeModule<unknown>[] = []): ScreenModule {
  const importAll = async () => (await Promise.all([importScreen(), ...alongside.map((code) => code.load())]))[0];
  return Object.assign(codeModule(source, importAll), { alongside });
}

// The screens not needed at first paint, each behind one import(), so the router (routes.tsx), a deep
// link's early start (early-start.ts) and the server's render load and remember the very same code.
// Code only: the same in every request the server renders.
export const screenModules = {
  projects: screenModule('src/screens/projects/projects-screen.tsx', async () => (await import('../screens/projects/projects-screen')).ProjectsScreen),
  project: screenModule('src/screens/project/project-screen.tsx', async () => (await import('../screens/project/project-screen')).ProjectScreen, [
    projectTimeline,
  ]),
  operation: screenModule(
    'src/screens/operation/operation-detail-screen.tsx',
    async () => (await import('../screens/operation/operation-detail-screen')).OperationDetailScreen,
  ),
  activity: screenModule('src/screens/activity/activity-screen.tsx', async () => (await import('../screens/activity/activity-screen')).ActivityScreen),
  archive: screenModule('src/screens/archive/archive-screen.tsx', async () => (await import('../screens/archive/archive-screen')).ArchiveScreen),
  notifications: screenModule(
    'src/screens/notifications/notifications-screen.tsx',
    async () => (await import('../screens/notifications/notifications-screen')).NotificationsScreen,
  ),
  insights: screenModule('src/screens/insights/insights-screen.tsx', async () => (await import('../screens/insights/insights-screen')).InsightsScreen),
  projectInsights: screenModule(
    'src/screens/insights/project-insights-screen.tsx',
    async () => (await import('../screens/insights/project-insights-screen')).ProjectInsightsScreen,
  ),
  audit: screenModule('src/screens/audit/audit-screen.tsx', async () => (await import('../screens/audit/audit-screen')).AuditScreen),
  apiKeys: screenModule('src/screens/api-keys/api-keys-screen.tsx', async () => (await import('../screens/api-keys/api-keys-screen')).ApiKeysScreen),
};
