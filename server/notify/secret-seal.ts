// What notifications keep sealed (DESIGN §5, like the archive's kept keys): each webhook's signing secret
// and the API key of the person who made it (to check, before each delivery, that the key can still read
// the project). AES-256-GCM under a key derived from SESSION_SECRET with this module's own HKDF label;
// each purpose binds its values with its own AAD, so one never opens as the other.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'n1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export type SealPurpose = 'webhook-secret' | 'owner-key';

export interface NotifySeal {
  seal: (purpose: SealPurpose, plain: string) => string;
  /** The plain text, or null when the value was sealed under another secret or for another purpose, or tampered with. */
  open: (purpose: SealPurpose, sealed: string) => string | null;
}

export function createNotifySeal(sessionSecret: string): NotifySeal {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(sessionSecret, 'utf8'), 'ops-console', 'notifications AES-256-GCM v1', 32));
  const aad = (purpose: SealPurpose) => Buffer.from(`ops-console notifications ${purpose} v1`);
  return {
    seal(purpose, plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad(purpose));
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url')}`;
    },
    open(purpose, value) {
      if (!value.startsWith(`${VERSION}.`)) return null;
      const bytes = Buffer.from(value.slice(VERSION.length + 1), 'base64url');
      if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES)).setAAD(aad(purpose));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}
