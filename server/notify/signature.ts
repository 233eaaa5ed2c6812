// Webhook signatures: Standard Webhooks (docs/notifications.md, "Signing"), which Svix's and Standard Webhooks'
// own libraries verify unchanged. Three headers: `webhook-id` (the event's id, the same on every retry),
// `webhook-timestamp` (unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
// keyed with the secret's bytes: the base64 after `whsec_`.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
/** How far a receiver should let a signature's time be from its own clock (the libraries' tolerance). */
export const REPLAY_WINDOW_SECONDS = 5 * 60;

const PREFIX = 'whsec_';
/** Standard Webhooks asks for 24 to 64 random bytes. */
const SECRET_BYTES = 32;

/** A new webhook secret, `whsec_` and base64: shown once, then only kept sealed. */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * The bytes a secret stands for. Node's base64 decoder also reads the URL-safe alphabet, so the secrets made
 * before Standard Webhooks signing (`whsec_` and base64url) sign with the same 32 bytes they always encoded.
 */
export function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

function mac(key: Buffer, id: string, timestamp: number, rawBody: string): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`, 'utf8').digest();
}

/** The three Standard Webhooks headers for `rawBody`, event `id`, sent at `nowMs`. */
export function signatureHeaders(secret: string, id: string, rawBody: string, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: `v1,${mac(secretBytes(secret), id, timestamp, rawBody).toString('base64')}`,
  };
}

/**
 * The receiver's check, as the spec words it: the timestamp within the window of `nowMs`, and one of the
 * space-separated `v1,<base64>` signatures equal (in constant time) to the one computed over the raw body.
 */
export function verifySignature(
  secret: string,
  rawBody: string,
  headers: Record<string, string | string[] | undefined>,
  nowMs: number,
  windowSeconds = REPLAY_WINDOW_SECONDS,
): boolean {
  const id = headers[WEBHOOK_ID_HEADER];
  const timestampText = headers[WEBHOOK_TIMESTAMP_HEADER];
  const signatures = headers[WEBHOOK_SIGNATURE_HEADER];
  if (typeof id !== 'string' || typeof timestampText !== 'string' || typeof signatures !== 'string' || !/^\d+$/.test(timestampText)) return false;
  const timestamp = Number(timestampText);
  if (Math.abs(nowMs / 1000 - timestamp) > windowSeconds) return false;
  const expected = mac(secretBytes(secret), id, timestamp, rawBody);
  return signatures.split(' ').some((signature) => {
    const [version, value] = signature.split(',', 2);
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
