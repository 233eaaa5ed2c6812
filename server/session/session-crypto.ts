// The session cookie's value: the API key and what the server learnt about it, sealed with AES-256-GCM
// under a key derived from SESSION_SECRET, with an expiry inside the sealed value (browsers restore
// "session" cookies, so the cookie's own lifetime cannot be trusted). Any instance with the same secret
// opens it: nothing about a session lives in one server's memory.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import { KeyKindSchema } from '../../src/api/page-data';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
// Binds a sealed value to its purpose: a value sealed for anything else under the same key never opens here.
const AAD = Buffer.from('ops-console session cookie v1');

const SessionSchema = z.object({
  /** The API key. */
  key: z.string(),
  kind: KeyKindSchema,
  /** Random id: what sign-out revokes on this instance. */
  sid: z.string(),
  remember: z.boolean(),
  /** Milliseconds since the epoch; the session is over from then on, whatever the browser keeps. */
  exp: z.number(),
});

export type Session = z.infer<typeof SessionSchema>;

export type Opened = { state: 'open'; session: Session } | { state: 'unreadable' } | { state: 'expired' };

export interface SessionCrypto {
  seal: (session: Session) => string;
  /** The session in `value`, or null when it was tampered with, sealed under another secret, malformed or expired. */
  open: (value: string, now?: number) => Session | null;
  /** As `open`, saying why not: `unreadable` (another secret, tampered with, malformed) or `expired`. */
  inspect: (value: string, now?: number) => Opened;
  /** Names the key for the page (tab-sharing namespaces) without revealing it: an HMAC under the secret. */
  fingerprint: (apiKey: string) => string;
}

export function newSessionId(): string {
  return randomBytes(12).toString('base64url');
}

/** A 32-byte key for one purpose (`info`, its own label), derived from the secret's bytes with HKDF-SHA256. */
export function deriveKey(material: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', material, 'ops-console', info, 32));
}

/** `text` sealed with AES-256-GCM under `key`, bound to `aad`: `v1.` + base64url(iv, ciphertext, tag). */
export function sealText(key: Buffer, aad: Buffer, text: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url')}`;
}

/** The text sealed in `value`, or null when it was tampered with, sealed under another key or for another purpose, or malformed. */
export function openSealed(key: Buffer, aad: Buffer, value: string): string | null {
  if (!value.startsWith(`${VERSION}.`)) return null;
  const bytes = Buffer.from(value.slice(VERSION.length + 1), 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES)).setAAD(aad);
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** Derives the cookie and fingerprint keys from `secret`; without one, from random bytes made now (printed nowhere). */
export function createSessionCrypto(secret: string | undefined): SessionCrypto {
  const material = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
  const derive = (info: string) => deriveKey(material, info);
  const sealKey = derive('session cookie AES-256-GCM v1');
  const fingerprintKey = derive('session fingerprint HMAC-SHA256 v1');

  const inspect = (value: string, now = Date.now()): Opened => {
    const plain = openSealed(sealKey, AAD, value);
    if (plain === null) return { state: 'unreadable' };
    let json: unknown;
    try {
      json = JSON.parse(plain);
    } catch {
      return { state: 'unreadable' };
    }
    const parsed = SessionSchema.safeParse(json);
    if (!parsed.success) return { state: 'unreadable' };
    return parsed.data.exp <= now ? { state: 'expired' } : { state: 'open', session: parsed.data };
  };

  return {
    inspect,
    seal: (session) => sealText(sealKey, AAD, JSON.stringify(session)),
    open(value, now) {
      const opened = inspect(value, now);
      return opened.state === 'open' ? opened.session : null;
    },
    fingerprint(apiKey) {
      return createHmac('sha256', fingerprintKey).update(apiKey, 'utf8').digest('base64url').slice(0, 32);
    },
  };
}
