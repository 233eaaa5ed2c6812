// What an API key can look like, checked before it is sent anywhere: the platform's keys are printable
// ASCII, and a character outside it (a pasted "é", a non-breaking space) could never match one. The
// sign-in screen and the console's server ask the same question.

/** Longest key either side accepts; the platform's are far shorter. */
export const MAX_API_KEY_LENGTH = 512;

/** Null when `key` could be an API key, else why not, in words (never echoing the key). */
export function keyFormatProblem(key: string): string | null {
  if (key === '') return 'Enter an API key.';
  if (key.length > MAX_API_KEY_LENGTH) return `This is longer than any API key (${MAX_API_KEY_LENGTH} characters at most). Check that only the key was pasted.`;
  const odd = /[^!-~]/u.exec(key)?.[0];
  if (odd === undefined) return null;
  const code = odd.codePointAt(0) ?? 0;
  const named = /\s/.test(odd) ? 'a space' : code < 0x20 || code === 0x7f ? 'a control character' : `“${odd}”`;
  return `An API key contains only letters, digits and punctuation from the ASCII range; this one contains ${named} (U+${code.toString(16).toUpperCase().padStart(4, '0')}). Check that the key was copied whole and nothing else came with it.`;
}
