// The door team sign-in keeps on every route (docs/team.md), as the rooms below it call it: the route hooks
// (server/routes/pipeline.ts), the pages and the forwarded API. server/auth/team-gate.ts builds it; in key mode
// there is none and nothing changes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditEntry } from '../../src/model/audit';
import type { Person, Role } from '../../src/model/roles';
import type { RouteConfig } from '../http/route';
import type { Session } from './session-crypto';
import type { SessionRead } from './sessions';

export interface TeamDoor {
  mode: 'oidc' | 'proxy';
  /** TEAM_API_KEY: the one key the API is called with; never sent to a browser. */
  teamKey: string;
  /** Records a row of the audit trail (before the answer goes out). */
  record: (entry: Omit<AuditEntry, 'requestId'>) => Promise<void>;
  /**
   * A page for a request in a team mode: true when answered here (signed out: to the identity provider, or the
   * proxy's "Not signed in"; signed in without a role: "No access"); false: the page is served as usual.
   */
  page: (req: IncomingMessage, res: ServerResponse, current: SessionRead) => boolean;
  /** Whether the session's person may call a route that asks `config.role`; refused: the 403 is answered and recorded. */
  allow: (req: IncomingMessage, res: ServerResponse, session: Session, config: RouteConfig) => Promise<boolean>;
  /** After a change through a route of the console's own: its row (read-only routes record nothing). */
  changed: (req: IncomingMessage, res: ServerResponse, session: Session, config: RouteConfig) => Promise<void>;
  /** The 403 of a call beyond the person's role (`needed`), recorded. */
  refuse: (res: ServerResponse, person: Person, needed: Role, may: string, action: string, target: string, projectId?: string) => Promise<void>;
}
