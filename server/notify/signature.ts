// Webhook signatures (docs/notifications.md): `X-Ops-Console-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
// under the webhook's own secret. The receiver recomputes it over the bytes it got (docs/notifications.md).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Ops-Console-Signature';
export const EVENT_HEADER = 'X-Ops-Console-Event';
/** How far a receiver should let a signature's time be from its own clock (docs/notifications.md's recipe). */
export const REPLAY_WINDOW_SECONDS = 5 * 60;

/** A new webhook secret: shown once, then only kept sealed. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function mac(secret: string, t: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${t}.${rawBody}`, 'utf8').digest('hex');
}

/** The signature header's value for `rawBody` sent at `nowMs`. */
export function signatureHeader(secret: string, rawBody: string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${mac(secret, t, rawBody)}`;
}

/** The receiver's check: the MAC matches (constant time) and `t` lies within the replay window of `nowMs`. */
export function verifySignature(secret: string, rawBody: string, header: string, nowMs: number, windowSeconds = REPLAY_WINDOW_SECONDS): boolean {
  const parts = new Map(header.split(',').map((part) => [part.slice(0, part.indexOf('=')).trim(), part.slice(part.indexOf('=') + 1).trim()] as const));
  const tText = parts.get('t');
  const v1 = parts.get('v1');
  if (tText === undefined || v1 === undefined || !/^\d+$/.test(tText) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const t = Number(tText);
  if (Math.abs(nowMs / 1000 - t) > windowSeconds) return false;
  return timingSafeEqual(Buffer.from(mac(secret, t, rawBody), 'hex'), Buffer.from(v1, 'hex'));
}
