// Roles of team sign-in (docs/team.md, "Roles"), shared by the server, which enforces them on every route, and
// the page, which mirrors them (a control beyond a person's role is disabled, its reason as its description).
import * as z from 'zod/mini';

export const RoleSchema = z.enum(['viewer', 'operator', 'admin']);
export type Role = z.infer<typeof RoleSchema>;

export const ROLE_ORDER: readonly Role[] = ['viewer', 'operator', 'admin'];

/** A role's rank: a person may do what their role's rank reaches. */
export const rankOf = (role: Role): number => ROLE_ORDER.indexOf(role);

/** Whether `held` (a person's role, or none) reaches `needed`. */
export function roleReaches(held: Role | null, needed: Role): boolean {
  return held !== null && rankOf(held) >= rankOf(needed);
}

/** The signed-in person of team sign-in: who they are and the role their groups gave at sign-in (null: none). */
export const PersonSchema = z.object({ email: z.string(), name: z.string(), role: z.nullable(RoleSchema) });
export type Person = z.infer<typeof PersonSchema>;

const PLURAL: Record<Role, string> = { viewer: 'Viewers', operator: 'Operators', admin: 'Admins' };

/** What a refusal says, naming the role a call needs: "Operators can restart computes". */
export function refusalMessage(needed: Role, what: string): string {
  return `${PLURAL[needed]} can ${what}`;
}

/** The heading of the page a signed-in person without a role sees. */
export const NO_ACCESS_HEADING = 'No access';
