// Commands a person can paste into a terminal to make the same read the console made: curl, or the
// platform's CLI (`neonctl api`, its authenticated passthrough). The key is never part of them: they
// say "$NEON_API_KEY" and the shell fills it in.

/** What the shell expands in place of the key. */
export const KEY_VARIABLE = '$NEON_API_KEY';
/** The platform's own API base: neonctl's default, so it needs no --api-host. */
export const PLATFORM_API_BASE = 'https://console.neon.tech/api/v2';

/** One shell word, quoted so nothing in it is expanded: 'it'\''s'. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface ApiRead {
  /** The API's base URL, `…/api/v2`. */
  base: string;
  /** Below the base: `/projects/{id}/operations`. */
  path: string;
  query?: Readonly<Record<string, string | number>>;
}

/** The read's URL. */
export function readUrl({ base, path, query = {} }: ApiRead): string {
  const url = new URL(base.replace(/\/$/, '') + path);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
  return url.toString();
}

/** `curl` of a GET of `urlWord` (a shell word: a quoted URL, or a variable), with the key's variable in the Authorization header. */
export function curlGet(urlWord: string): string {
  return `curl --silent --show-error --fail-with-body -H "Authorization: Bearer ${KEY_VARIABLE}" -H 'Accept: application/json' ${urlWord}`;
}

/** `curl` of a GET. */
export function curlCommand(read: ApiRead): string {
  return curlGet(shellQuote(readUrl(read)));
}

/**
 * `npx neonctl api` of a GET, with the key's variable as --api-key (and --api-host unless it is the
 * platform's). Through npx: from a clone neonctl is a dev dependency, not a command on the PATH.
 */
export function neonctlCommand({ base, path, query = {} }: ApiRead): string {
  const words = ['npx', 'neonctl', 'api', shellQuote(path)];
  for (const [name, value] of Object.entries(query)) words.push('-Q', shellQuote(`${name}=${value}`));
  const trimmed = base.replace(/\/$/, '');
  if (trimmed !== PLATFORM_API_BASE) words.push('--api-host', shellQuote(trimmed));
  words.push('--api-key', `"${KEY_VARIABLE}"`);
  return words.join(' ');
}
