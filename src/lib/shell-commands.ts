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
  /** A jq program the output is piped through (the API has no filters of its own). */
  jq?: string | undefined;
}

const piped = (command: string, jq: string | undefined) => (jq ? `${command} | jq ${shellQuote(jq)}` : command);

/** `curl` of a GET, with the key's variable in the Authorization header. */
export function curlCommand({ base, path, query = {}, jq }: ApiRead): string {
  const url = new URL(base.replace(/\/$/, '') + path);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
  const command = `curl --silent --show-error --fail-with-body -H "Authorization: Bearer ${KEY_VARIABLE}" -H 'Accept: application/json' ${shellQuote(url.toString())}`;
  return piped(command, jq);
}

/** `neonctl api` of a GET, with the key's variable as --api-key (and --api-host unless it is the platform's). */
export function neonctlCommand({ base, path, query = {}, jq }: ApiRead): string {
  const words = ['neonctl', 'api', shellQuote(path)];
  for (const [name, value] of Object.entries(query)) words.push('-Q', shellQuote(`${name}=${value}`));
  const trimmed = base.replace(/\/$/, '');
  if (trimmed !== PLATFORM_API_BASE) words.push('--api-host', shellQuote(trimmed));
  words.push('--api-key', `"${KEY_VARIABLE}"`);
  return piped(words.join(' '), jq);
}
