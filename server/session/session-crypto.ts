// The session cookie's value: the API key and what the server learnt about it, sealed (server/seal/seal.ts) with an
// expiry inside the sealed value (browsers restore "session" cookies, so the cookie's own lifetime cannot be
// trusted). Any instance with the same secret opens it: nothing about a session lives in one server's memory.
import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import { KeyKindSchema } from '../../src/api/page-data';
import { PersonSchema } from '../../src/model/roles';
import type { Seal } from '../seal/seal';

const SessionSchema = z.object({
  /** The API key. */
  key: z.string(),
  kind: KeyKindSchema,
  /** Random id: what sign-out revokes. */
  sid: z.string(),
  remember: z.boolean(),
  /** Milliseconds since the epoch; the session is over from then on, whatever the browser keeps. */
  exp: z.number(),
  /** Team sign-in: the person (their key is the team's, never in the cookie: `key` is empty there, docs/team.md). */
  person: z.optional(PersonSchema),
});

export type Session = z.infer<typeof SessionSchema>;

export type Opened = { state: 'open'; session: Session } | { state: 'unreadable' } | { state: 'expired' };

export interface SessionCrypto {
  seal: (session: Session) => string;
  /** The session in `value`, or null when it was tampered with, sealed under another secret, malformed or expired. */
  open: (value: string, now?: number) => Session | null;
  /** As `open`, saying why not: `unreadable` (another secret, tampered with, malformed) or `expired`. */
  inspect: (value: string, now?: number) => Opened;
}

export function newSessionId(): string {
  return randomBytes(12).toString('base64url');
}

export function createSessionCrypto(seal: Seal): SessionCrypto {
  const inspect = (value: string, now = Date.now()): Opened => {
    const plain = seal.open('session-cookie', value);
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
    seal: (session) => seal.seal('session-cookie', JSON.stringify(session)),
    open(value, now) {
      const opened = inspect(value, now);
      return opened.state === 'open' ? opened.session : null;
    },
  };
}
