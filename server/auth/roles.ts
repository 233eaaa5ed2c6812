// Roles of team sign-in (docs/team.md, "Roles"): viewer < operator < admin, given by the groups a person
// belongs to through ROLES (`admin=g1;operator=g2,g3;viewer=*`, `*`: everyone signed in); the highest wins.
import { ROLE_ORDER, type Role } from '../../src/model/roles';

/** The groups each role is given to. */
export type RoleGroups = ReadonlyMap<Role, ReadonlySet<string>>;

const isRole = (text: string): text is Role => (ROLE_ORDER as readonly string[]).includes(text);

/** ROLES as the operator wrote it; a malformed rule stops start-up with what is wrong. */
export function parseRoles(text: string): RoleGroups {
  const roles = new Map<Role, Set<string>>();
  for (const rule of text.split(';')) {
    if (rule.trim() === '') continue;
    const eq = rule.indexOf('=');
    const role = (eq < 0 ? rule : rule.slice(0, eq)).trim();
    if (!isRole(role)) throw new Error(`ROLES: "${role}" is not a role (viewer, operator or admin) in "${rule.trim()}".`);
    const groups =
      eq < 0
        ? []
        : rule
            .slice(eq + 1)
            .split(',')
            .map((group) => group.trim())
            .filter(Boolean);
    if (groups.length === 0) throw new Error(`ROLES: ${role} is given to no group (write ${role}=group1,group2).`);
    const known = roles.get(role) ?? new Set<string>();
    for (const group of groups) known.add(group);
    roles.set(role, known);
  }
  if (roles.size === 0) throw new Error('ROLES gives no role to any group (e.g. ROLES="admin=platform-admins;operator=ops-oncall;viewer=*").');
  return roles;
}

/** The highest role any of `groups` gives (`*`: every signed-in person), or null: no role. */
export function roleOf(roles: RoleGroups, groups: readonly string[]): Role | null {
  for (const role of [...ROLE_ORDER].reverse()) {
    const given = roles.get(role);
    if (given && (given.has('*') || groups.some((group) => given.has(group)))) return role;
  }
  return null;
}
