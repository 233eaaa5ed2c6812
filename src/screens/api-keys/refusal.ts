import { describeError, isApiError } from '../../api/api-error';

export type KeyAction = 'list' | 'create' | 'create-project-scoped' | 'revoke';

/** Whose keys an action was about, named for people. */
export type OwnerLabel = { kind: 'personal' } | { kind: 'organization'; name: string };

/** The kind of key the console is signed in with, for explaining a refusal. */
export type SessionKeyKind = 'personal' | 'organization' | 'project' | 'unknown';

export interface Explanation {
  /** Why, in plain words: what the console knows about who may do what. */
  reason: string;
  /** What the API itself said, when it said something. */
  apiMessage?: string | undefined;
  requestId?: string | undefined;
}

const SESSION_KEY: Record<SessionKeyKind, string> = {
  personal: 'a personal key',
  organization: 'an organization key',
  project: 'a project-scoped key',
  unknown: 'this kind of credential',
};

function forbidden(action: KeyAction, owner: OwnerLabel, session: SessionKeyKind): string {
  const signedIn = `This console is signed in with ${SESSION_KEY[session]}.`;
  if (session === 'project') {
    return `${signedIn} A project-scoped key can only work inside its one project: it cannot list, create or revoke API keys.`;
  }
  if (owner.kind === 'personal') {
    const verb = action === 'list' ? 'listed' : action === 'revoke' ? 'revoked' : 'created';
    return session === 'personal'
      ? `The API refused: personal keys can only be ${verb} by the user who owns them.`
      : `Personal keys can only be ${verb} with a personal key of their owner. ${signedIn}`;
  }
  const org = owner.name;
  switch (action) {
    case 'create-project-scoped':
      return `Only members of ${org} can create project-scoped keys for its projects, and the API says this key is not one.`;
    case 'create':
      return `Only administrators of ${org} (or ${org}'s own organization key) can create organization keys, and the API says this key may not.`;
    case 'revoke':
      return `Only administrators of ${org} (or ${org}'s own organization key) can revoke its keys, and the API says this key may not.`;
    case 'list':
      return `Only administrators of ${org} (or ${org}'s own organization key) can see its keys.`;
  }
}

function notFound(action: KeyAction, owner: OwnerLabel): string {
  if (action === 'revoke') {
    return 'The API has no such key: it may already have been revoked, or it is outside what this API key can reach. The list has been refreshed.';
  }
  if (owner.kind === 'organization') return `The API does not know ${owner.name}, or it is outside what this API key can reach.`;
  return 'The API did not find this, or it is outside what this API key can reach.';
}

/** Turns a refused key action into a sentence a person can act on. */
export function explainRefusal(error: unknown, action: KeyAction, owner: OwnerLabel, session: SessionKeyKind): Explanation {
  const { message, requestId } = describeError(error);
  if (!isApiError(error) || error.kind !== 'http') return { reason: message, requestId };
  if (error.status === 403) return { reason: forbidden(action, owner, session), apiMessage: message, requestId };
  if (error.status === 404) return { reason: notFound(action, owner), apiMessage: message, requestId };
  if (error.status === 400) return { reason: `The API refused the request as invalid: ${message}`, requestId };
  return { reason: message, requestId };
}
