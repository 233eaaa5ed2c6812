// Where the console's /api/v2 goes, as the running server says (the page's data block, PageData.apiUrl; the
// server's own render is told the same), never as the build was made: a build without API_URL served in front of
// a real API says so. The key screen and the header name it; copied commands call it.

let forwardedTo: string | undefined;

/** `url`: the real API the server forwards to; undefined: the built-in simulator answers on this origin. */
export function setApiTarget(url: string | undefined): void {
  forwardedTo = url;
}

/** Human description of where /api/v2 goes, shown on the key screen and in the header. */
export function apiTarget(): { isSimulator: boolean; label: string } {
  return { isSimulator: forwardedTo === undefined, label: forwardedTo ?? 'the built-in simulator (demo data)' };
}

/**
 * The API base a command copied from the console should call: the real API when the console forwards
 * to one, otherwise this console's own /api/v2 (where the simulator answers).
 */
export function apiBaseForCommands(origin: string = window.location.origin): string {
  return forwardedTo === undefined ? `${origin}/api/v2` : forwardedTo.replace(/\/$/, '');
}
