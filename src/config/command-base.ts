/**
 * The API base a command copied from the console should call: the real API when the console forwards
 * to one, otherwise this console's own /api/v2 (where the simulator answers).
 */
export function apiBaseForCommands(origin: string = pageOrigin()): string {
  return __API_TARGET__ === '' ? `${origin}/api/v2` : __API_TARGET__.replace(/\/$/, '');
}

/**
 * The page's origin. The server renders without one: a stand-in then, never shown (a command is only
 * copied on a click, in the browser, whose own render has the page's origin).
 */
function pageOrigin(): string {
  return typeof window === 'undefined' ? 'http://console.invalid' : window.location.origin;
}
