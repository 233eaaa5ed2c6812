// The screens that load on demand, each behind one import() so the router (routes.tsx) and a deep
// link's early start (early-start.ts) ask for the very same chunk.
export const screenModules = {
  projects: async () => (await import('../screens/projects/projects-screen')).ProjectsScreen,
  operations: async () => (await import('../screens/operations/operations-screen')).OperationsScreen,
  operationDetail: async () => (await import('../screens/operation-detail/operation-detail-screen')).OperationDetailScreen,
  apiKeys: async () => (await import('../screens/api-keys/api-keys-screen')).ApiKeysScreen,
};
