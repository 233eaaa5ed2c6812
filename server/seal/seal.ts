// Everything the server keeps secret is sealed here, one way (docs/session-and-security.md): AES-256-GCM
// under a key derived from SESSION_SECRET with HKDF-SHA256 and a label of its purpose's own, bound to that
// purpose by its additional data, so a value sealed for one purpose never opens as another. The same secret
// names API keys without revealing them: one keyed fingerprint, for the page (tab-sharing namespaces), the
// archive (one source per key) and notifications (whose webhooks a session sees).
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * What is sealed: the session cookie, a kept API key of the archive, a webhook's signing secret, the API key of the
 * person who made a webhook, an OIDC sign-in under way (docs/team.md), the key a watch is followed with (docs/live.md).
 */
export type SealPurpose = 'session-cookie' | 'kept-key' | 'webhook-secret' | 'owner-key' | 'oidc-flow' | 'watch-key';

interface PurposeKeys {
  /** HKDF info: the purpose's key. */
  label: string;
  /** GCM additional data: the purpose's binding. */
  aad: string;
  /** The sealed value's prefix (a value sealed before this module existed keeps opening). */
  version: string;
}

const PURPOSES: Record<SealPurpose, PurposeKeys> = {
  'session-cookie': { label: 'session cookie AES-256-GCM v1', aad: 'ops-console session cookie v1', version: 'v1' },
  'kept-key': { label: 'archive kept key AES-256-GCM v1', aad: 'ops-console archive kept key v1', version: 'v1' },
  'webhook-secret': { label: 'notifications AES-256-GCM v1', aad: 'ops-console notifications webhook-secret v1', version: 'n1' },
  'owner-key': { label: 'notifications AES-256-GCM v1', aad: 'ops-console notifications owner-key v1', version: 'n1' },
  'oidc-flow': { label: 'oidc sign-in flow AES-256-GCM v1', aad: 'ops-console oidc sign-in flow v1', version: 'o1' },
  'watch-key': { label: 'live watch key AES-256-GCM v1', aad: 'ops-console live watch key v1', version: 'w1' },
};

const FINGERPRINT_LABEL = 'session fingerprint HMAC-SHA256 v1';
/** Characters of a fingerprint (base64url of the HMAC, cut): 192 bits, far past any collision among keys. */
export const FINGERPRINT_LENGTH = 32;

const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface Seal {
  seal: (purpose: SealPurpose, text: string) => string;
  /** The sealed text, or null when it was sealed under another secret or for another purpose, tampered with, or malformed. */
  open: (purpose: SealPurpose, sealed: string) => string | null;
  /** Names an API key without revealing it: an HMAC under the secret (the same key always gets the same name). */
  fingerprint: (apiKey: string) => string;
  /** True when there was no secret to derive from: random bytes made at start, so nothing sealed outlives the process. */
  readonly ephemeral: boolean;
}

/** A 32-byte key for one purpose (`info`, its own label), derived from the secret's bytes with HKDF-SHA256. */
function deriveKey(material: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', material, 'ops-console', info, 32));
}

/** `secret` undefined: random bytes made now (printed nowhere). */
export function createSeal(secret: string | undefined): Seal {
  const material = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
  const keys = new Map<string, Buffer>();
  const keyOf = (label: string) => {
    let key = keys.get(label);
    if (!key) {
      key = deriveKey(material, label);
      keys.set(label, key);
    }
    return key;
  };
  const fingerprintKey = deriveKey(material, FINGERPRINT_LABEL);
  return {
    ephemeral: secret === undefined,
    seal(purpose, text) {
      const { label, aad, version } = PURPOSES[purpose];
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyOf(label), iv).setAAD(Buffer.from(aad));
      const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return `${version}.${Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url')}`;
    },
    open(purpose, value) {
      const { label, aad, version } = PURPOSES[purpose];
      if (!value.startsWith(`${version}.`)) return null;
      const bytes = Buffer.from(value.slice(version.length + 1), 'base64url');
      if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyOf(label), bytes.subarray(0, IV_BYTES)).setAAD(Buffer.from(aad));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
    fingerprint: (apiKey) => createHmac('sha256', fingerprintKey).update(apiKey, 'utf8').digest('base64url').slice(0, FINGERPRINT_LENGTH),
  };
}
