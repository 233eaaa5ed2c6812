// Who hears about a project (docs/live.md, "Only what a session may read"): the one check before a stream
// passes on a change or a watch is kept. Today the session's key must read the project (the API is asked,
// server/proxy/project-access.ts); roles (team sign-in) add their rule here, in this one function.
import type { ProjectAccess } from '../proxy/project-access';
import type { Seal } from '../seal/seal';
import type { Session } from '../session/session-crypto';

export type Readable = (session: Session, projectId: string) => Promise<'yes' | 'no' | 'revoked'>;

export function createReadable(access: ProjectAccess, seal: Seal): Readable {
  return async (session, projectId) => {
    // The answer is about the key, so it is kept per key (its fingerprint, never the key): many sessions of one key ask once.
    const answer = await access.check(`live\u0000${seal.fingerprint(session.key)}`, session.key, projectId);
    if (answer.kind === 'readable') return 'yes';
    return answer.kind === 'revoked' ? 'revoked' : 'no';
  };
}
