// Users, organizations and memberships, and the scope rules that follow from them: which projects a key
// sees, who administers an organization, and what /auth, /users/me and /users/me/organizations answer.
import { forbidden, notFound } from '../http-errors';
import { randomUuid } from '../random';
import { wireTime, type AuthDetails, type Organization, type WireCurrentUser } from '../wire';
import type { OrgRole, Principal } from './types';
import type { OrgRecord, ProjectRecord, UserRecord, World } from './world';

/** A personal account's plan: the platform's free tier. */
export const PERSONAL_PLAN = { plan: 'free_v3', projectsLimit: 100, branchesLimit: 5000, maxAutoscalingCu: 2 } as const;

export type Accounts = ReturnType<typeof createAccounts>;

export function createAccounts(world: World) {
  const { users, orgs, memberIds, now } = world;
  const memberId = (orgId: string, userId: string): string => {
    const key = `${orgId}/${userId}`;
    let id = memberIds.get(key);
    if (id === undefined) {
      id = randomUuid(world.random);
      memberIds.set(key, id);
    }
    return id;
  };

  function isMember(userId: string, org: OrgRecord): boolean {
    return org.roles.has(userId);
  }

  function isOrgAdmin(principal: Principal, org: OrgRecord): boolean {
    if (principal.kind === 'organization') return principal.orgId === org.id;
    if (principal.kind === 'personal') return org.roles.get(principal.userId) === 'admin';
    return false;
  }

  function canSee(principal: Principal, project: ProjectRecord): boolean {
    if (project.deletedAtMs !== null) return false;
    switch (principal.kind) {
      case 'personal': {
        if (project.sharedWith.has(principal.userId)) return true;
        if (project.orgId === null) return project.ownerUserId === principal.userId;
        const org = orgs.get(project.orgId);
        return org !== undefined && isMember(principal.userId, org);
      }
      case 'organization':
        return project.orgId === principal.orgId;
      case 'project':
        return project.id === principal.projectId;
    }
  }

  function requireOrg(orgId: string): OrgRecord {
    const org = orgs.get(orgId);
    if (!org) throw notFound(`organization ${orgId} not found`);
    return org;
  }

  function organizationView(org: OrgRecord): Organization {
    return {
      id: org.id,
      name: org.name,
      handle: org.handle,
      plan: org.plan,
      managed_by: 'console',
      created_at: wireTime(org.createdAtMs),
      updated_at: wireTime(org.updatedAtMs),
    };
  }

  function currentUserView(user: UserRecord): WireCurrentUser {
    const [name = user.name, ...rest] = user.name.split(' ');
    return {
      id: user.id,
      email: user.email,
      login: user.email,
      name,
      last_name: rest.join(' '),
      image: user.image,
      auth_accounts: [{ provider: 'github', email: user.email, name: user.name, login: user.email, image: user.image }],
      plan: PERSONAL_PLAN.plan,
      projects_limit: PERSONAL_PLAN.projectsLimit,
      branches_limit: PERSONAL_PLAN.branchesLimit,
      max_autoscaling_limit: PERSONAL_PLAN.maxAutoscalingCu,
      active_seconds_limit: 0,
      compute_seconds_limit: 0,
    };
  }

  return {
    isMember,
    isOrgAdmin,
    canSee,
    requireOrg,

    /** A project outside the key's scope is reported as missing, as the platform does. */
    visibleProject: (principal: Principal, projectId: string): ProjectRecord => {
      const project = world.projects.get(projectId);
      if (!project || !canSee(principal, project)) throw notFound(`project ${projectId} not found`);
      return project;
    },

    /** Who a change is attributed to: the key's user, or whoever created an organization or project key. */
    actingUserId: (principal: Principal): string => {
      if (principal.kind === 'personal') return principal.userId;
      const key = world.apiKeys.get(principal.keyId);
      if (!key) throw new Error(`unknown key ${principal.keyId}`);
      return key.createdBy;
    },

    firstAdmin: (org: OrgRecord): string => {
      for (const [userId, role] of org.roles) if (role === 'admin') return userId;
      throw new Error(`organization ${org.id} has no admin`);
    },

    addUser: (input: { name: string; email?: string; id?: string }): { id: string } => {
      const id = input.id ?? randomUuid(world.random);
      if (users.has(id)) throw new Error(`user ${id} already exists`);
      const slug = input.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '.')
        .replace(/^\.|\.$/g, '');
      users.set(id, {
        id,
        name: input.name,
        email: input.email ?? `${slug || 'user'}@example.com`,
        image: `https://avatars.example.com/${id}.png`,
        createdAtMs: now(),
      });
      return { id };
    },

    addOrganization: (name: string, members: { admins: string[]; members?: string[]; plan?: string; id?: string }): { id: string } => {
      if (members.admins.length === 0) throw new Error('an organization needs at least one admin');
      const id = members.id ?? world.uniqueId('org', 8, (candidate) => orgs.has(candidate));
      if (orgs.has(id)) throw new Error(`organization ${id} already exists`);
      const roles = new Map<string, OrgRole>();
      for (const userId of members.members ?? []) roles.set(world.userOrThrow(userId).id, 'member');
      for (const userId of members.admins) roles.set(world.userOrThrow(userId).id, 'admin');
      const slug = name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '');
      orgs.set(id, { id, name, handle: `${slug}-${id}`, plan: members.plan ?? 'scale', createdAtMs: now(), updatedAtMs: now(), roles });
      return { id };
    },

    addMember: (orgId: string, userId: string, role: OrgRole = 'member'): void => {
      const org = world.orgOrThrow(orgId);
      org.roles.set(world.userOrThrow(userId).id, role);
      org.updatedAtMs = now();
    },

    removeMember: (orgId: string, userId: string): void => {
      const org = world.orgOrThrow(orgId);
      org.roles.delete(userId);
      org.updatedAtMs = now();
    },

    whoAmI: (principal: Principal): AuthDetails => {
      if (principal.kind === 'personal') return { account_id: principal.userId, auth_method: 'api_key_user' };
      return { account_id: principal.orgId, auth_method: 'api_key_org' };
    },

    /** GET /users/me: only a personal key stands for a user. */
    currentUser: (principal: Principal): WireCurrentUser => {
      if (principal.kind !== 'personal') {
        throw forbidden('organization and project-scoped API keys are not tied to a user; /users/me needs a personal API key');
      }
      return currentUserView(world.userOrThrow(principal.userId));
    },

    listOrganizations: (principal: Principal): { organizations: Organization[] } => {
      if (principal.kind !== 'personal') {
        // Not tied to a user: the platform answers with the one organization that owns the key.
        const org = orgs.get(principal.orgId);
        return { organizations: org ? [organizationView(org)] : [] };
      }
      const mine = [...orgs.values()].filter((org) => isMember(principal.userId, org));
      mine.sort((a, b) => a.name.localeCompare(b.name));
      return { organizations: mine.map(organizationView) };
    },

    /**
     * GET /organizations/{org_id}/members: any member may list them with a personal key, as may the
     * organization's own key; a project-scoped key, or a user outside the organization, is refused (403).
     */
    listMembers: (principal: Principal, orgId: string): { members: WireMember[] } => {
      const org = requireOrg(orgId);
      const allowed = (principal.kind === 'personal' && isMember(principal.userId, org)) || (principal.kind === 'organization' && principal.orgId === org.id);
      if (!allowed) throw forbidden(`this API key may not list the members of organization ${org.id}`);
      return {
        members: [...org.roles].map(([userId, role]) => ({
          member: { id: memberId(org.id, userId), user_id: userId, org_id: org.id, role, joined_at: wireTime(org.createdAtMs) },
          user: { email: world.userOrThrow(userId).email },
        })),
      };
    },
  };
}

/** One entry of an organization's member list, in the platform's shape (MemberWithUser). */
export interface WireMember {
  member: { id: string; user_id: string; org_id: string; role: OrgRole; joined_at: string };
  user: { email: string };
}
