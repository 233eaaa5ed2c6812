// The API key the wire layer sends. Held in memory only; the session (src/app) decides where else
// it may live and sets it here. Nothing else reads it.
let currentKey: string | null = null;

export function setApiKey(key: string | null): void {
  currentKey = key;
}

export function getApiKey(): string | null {
  return currentKey;
}
