// Kept keys (DESIGN §5): sealed with AES-256-GCM under a key derived from SESSION_SECRET with the
// archive's own HKDF label (the session cookie's primitives, server/session/session-crypto.ts), and
// named by a keyed fingerprint so the same key is kept once and a session can tell its own source.
import { createHmac, randomBytes } from 'node:crypto';
import { deriveKey, openSealed, sealText } from '../session/session-crypto';

const AAD = Buffer.from('ops-console archive kept key v1');

export interface KeySealer {
  seal: (apiKey: string) => string;
  /** The key, or null when the value was sealed under another secret or tampered with. */
  open: (sealed: string) => string | null;
  fingerprint: (apiKey: string) => string;
}

/** `secret` undefined: random bytes made now, so kept keys do not outlive the process (as its sessions). */
export function createKeySealer(secret: string | undefined): KeySealer {
  const material = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
  const sealKey = deriveKey(material, 'archive kept key AES-256-GCM v1');
  const fingerprintKey = deriveKey(material, 'archive kept key fingerprint HMAC-SHA256 v1');
  return {
    seal: (apiKey) => sealText(sealKey, AAD, apiKey),
    open: (sealed) => openSealed(sealKey, AAD, sealed),
    fingerprint: (apiKey) => createHmac('sha256', fingerprintKey).update(apiKey, 'utf8').digest('base64url'),
  };
}
