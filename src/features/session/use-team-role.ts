import { useSyncExternalStore } from 'react';
import { refusalMessage, roleReaches, type Person, type Role } from '../../model/roles';
import { useSessionStore } from './session-store';

// The page's mirror of team sign-in's roles (docs/team.md, "What each role may do"): the server refuses a call
// beyond the person's role; the page disables its control beforehand and says why. With a key: everything allowed.

export interface TeamRole {
  person: Person | null;
  /** Why the person may not do `what` (which needs `role`), or undefined when they may. */
  refusal: (role: Role, what: string) => string | undefined;
  may: (role: Role) => boolean;
}

export function useTeamRole(): TeamRole {
  const session = useSessionStore();
  const state = useSyncExternalStore(session.subscribe, session.getState, session.getState);
  const person = state.person;
  const may = (role: Role) => person === null || roleReaches(person.role, role);
  return { person, may, refusal: (role, what) => (may(role) ? undefined : refusalMessage(role, what)) };
}
