/**
 * The API base a command copied from the console should call: the real API when the console forwards
 * to one, otherwise this console's own /api/v2 (where the simulator answers).
 */
export function apiBaseForCommands(origin: string = window.location.origin): string {
  return __API_TARGET__ === '' ? `${origin}/api/v2` : __API_TARGET__.replace(/\/$/, '');
}
