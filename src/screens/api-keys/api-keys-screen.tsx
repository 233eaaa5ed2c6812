import { useState } from 'react';
import { isDoneUnread } from '../../api/api-error';
import { useRevokeApiKey, type KeyOwner } from '../../api/api-keys';
import type { ApiKey, ApiKeyCreated } from '../../api/schemas';
import { ErrorCallout } from '../../components/error-callout';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { TableSkeleton } from '../../components/table-skeleton';
import { useSessionStore } from '../../features/session/session-store';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useNow } from '../../lib/use-now';
import { CreateKeyForm, type KeyTarget } from './create-key-form';
import { CurrentKeyPanel } from './current-key-panel';
import { KeysSection } from './keys-section';
import { PERSONAL_KEY_COLUMNS } from './keys-table';
import { OrganizationKeysSection } from './organization-keys-section';
import { explainRefusal, type Explanation, type OwnerLabel, type SessionKeyKind } from './refusal';
import { RevokeDialog } from './revoke-dialog';
import { SecretDialog } from './secret-dialog';
import { useKeyAccess, type KeyAccess } from './use-key-access';

interface RevokeTarget {
  owner: KeyOwner;
  ownerLabel: OwnerLabel;
  key: ApiKey;
  /** The heading of the key's list: where focus goes once its row is gone. */
  heading: HTMLElement | null;
}

const ownerId = (owner: KeyOwner) => (owner.kind === 'personal' ? 'personal' : owner.orgId);

function sessionKindOf(access: KeyAccess): SessionKeyKind {
  switch (access.state) {
    case 'personal':
    case 'organization':
    case 'project':
      return access.state;
    default:
      return 'unknown';
  }
}

/** Where this session may create keys: the spec's "who can create" table applied to what the API told us. */
function createTargets(access: KeyAccess): KeyTarget[] {
  if (access.state === 'personal') {
    const targets: KeyTarget[] = [{ id: 'personal', owner: { kind: 'personal' }, label: 'Personal key (yours)', projectScopedOnly: false }];
    for (const { org, role } of access.organizations) {
      if (role !== 'admin' && role !== 'member') continue;
      targets.push({
        id: `org:${org.id}`,
        owner: { kind: 'organization', orgId: org.id },
        label: role === 'admin' ? `${org.name}: organization or project-scoped key` : `${org.name}: project-scoped key (you are a member)`,
        orgName: org.name,
        projectScopedOnly: role === 'member',
      });
    }
    return targets;
  }
  if (access.state === 'organization') {
    const name = access.org?.name ?? access.orgId;
    return [{ id: `org:${access.orgId}`, owner: { kind: 'organization', orgId: access.orgId }, label: name, orgName: name, projectScopedOnly: false }];
  }
  return [];
}

function describeOwner(owner: OwnerLabel): string {
  return owner.kind === 'personal' ? 'your personal keys' : owner.name;
}

export function ApiKeysScreen() {
  useDocumentTitle('API keys');
  const session = useSessionStore();
  const access = useKeyAccess();
  const now = useNow(30_000);
  const revoke = useRevokeApiKey();
  // The one place the new secret lives: component state, gone when the dialog closes or the page unmounts.
  const [revealed, setRevealed] = useState<{ created: ApiKeyCreated; ownerLabel: string } | null>(null);
  const [confirming, setConfirming] = useState<RevokeTarget | null>(null);
  const [refused, setRefused] = useState<{ ownerId: string; keyName: string; explanation: Explanation } | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const sessionKind = sessionKindOf(access);

  function askToRevoke(owner: KeyOwner, ownerLabel: OwnerLabel) {
    return (key: ApiKey, trigger: HTMLElement) => {
      setConfirming({ owner, ownerLabel, key, heading: trigger.closest('section')?.querySelector('h2') ?? null });
    };
  }

  async function confirmRevoke({ owner, ownerLabel, key }: RevokeTarget) {
    setRefused(null);
    setAnnouncement('');
    // If this is the console's own key, reads in flight are refused from now on: that is this revoke, not a
    // rejected key, and the key screen must say so. Such 401s wait until the revoke knows.
    const releaseRejections = session.holdRejections();
    try {
      const { revokedKeyInUse } = await revoke.mutateAsync({ owner, key });
      if (revokedKeyInUse) {
        session.signOut('revoked');
        return;
      }
      setAnnouncement(`Key “${key.name}” was revoked.`);
    } catch (error) {
      if (isDoneUnread(error)) {
        setAnnouncement(`Key “${key.name}” was revoked, but the API's answer could not be read. The list is being refreshed.`);
        return;
      }
      setRefused({ ownerId: ownerId(owner), keyName: key.name, explanation: explainRefusal(error, 'revoke', ownerLabel, sessionKind) });
    } finally {
      releaseRejections();
      setConfirming((current) => (current?.key.id === key.id ? null : current));
    }
  }

  function refusalNotice(owner: KeyOwner) {
    if (refused?.ownerId !== ownerId(owner)) return null;
    const { explanation, keyName } = refused;
    return (
      <ErrorCallout title={`Key “${keyName}” was not revoked.`} message={explanation.reason} requestId={explanation.requestId}>
        {explanation.apiMessage && <p className="muted">The API said: {explanation.apiMessage}</p>}
      </ErrorCallout>
    );
  }

  const targets = createTargets(access);

  let content;
  if (access.state === 'loading') {
    content = (
      <>
        <section className="current-key current-key--loading" aria-busy="true">
          <p role="status" className="muted">
            Checking what this key is and what it may do…
          </p>
        </section>
        <TableSkeleton columns={PERSONAL_KEY_COLUMNS} rows={3} label="Loading keys…" />
      </>
    );
  } else if (access.state === 'error') {
    content = <LoadFailureCallout title="Could not check this API key." failure={access.failure} onRetry={access.retry} fetching={access.fetching} />;
  } else {
    content = (
      <>
        <CurrentKeyPanel access={access} />
        {targets.length > 0 ? (
          <CreateKeyForm
            targets={targets}
            sessionKind={sessionKind}
            onCreated={(created, target) =>
              setRevealed({
                created,
                ownerLabel:
                  target.owner.kind === 'personal'
                    ? 'Personal key'
                    : `${created.project_id ? 'Project-scoped key' : 'Organization key'} of ${target.orgName ?? target.owner.orgId}`,
              })
            }
          />
        ) : (
          <p className="callout">This key cannot list, create or revoke API keys. To manage keys, sign in with a personal key or an organization key.</p>
        )}

        {access.state === 'personal' && (
          <>
            <KeysSection
              owner={{ kind: 'personal' }}
              ownerLabel={{ kind: 'personal' }}
              title="Personal keys"
              emptyText="No personal keys yet."
              sessionKind={sessionKind}
              onRevoke={askToRevoke({ kind: 'personal' }, { kind: 'personal' })}
              notice={refusalNotice({ kind: 'personal' })}
              now={now}
            />
            {access.organizationsLoading && (
              <p role="status" className="muted">
                Loading your organizations…
              </p>
            )}
            {access.organizationsFailure !== null && (
              <LoadFailureCallout
                title="Could not load your organizations."
                failure={access.organizationsFailure}
                onRetry={access.retryOrganizations}
                fetching={access.organizationsFetching}
              />
            )}
            {access.organizations.map(({ org, role }) => {
              const owner: KeyOwner = { kind: 'organization', orgId: org.id };
              const label: OwnerLabel = { kind: 'organization', name: org.name };
              return (
                <OrganizationKeysSection
                  key={org.id}
                  orgId={org.id}
                  orgName={org.name}
                  sessionKind={sessionKind}
                  onRevoke={role === 'admin' ? askToRevoke(owner, label) : undefined}
                  listing={role === 'member' ? 'forbidden' : role === 'checking' ? 'wait' : 'fetch'}
                  notice={refusalNotice(owner)}
                  whenForbidden={
                    <p className="callout">
                      You are a member of {org.name}, not an administrator: only its administrators can see and revoke its keys. You can still create
                      project-scoped keys for its projects.
                    </p>
                  }
                  now={now}
                />
              );
            })}
          </>
        )}

        {access.state === 'organization' && (
          <>
            <OrganizationKeysSection
              orgId={access.orgId}
              orgName={access.org?.name ?? access.orgId}
              sessionKind={sessionKind}
              onRevoke={askToRevoke({ kind: 'organization', orgId: access.orgId }, { kind: 'organization', name: access.org?.name ?? access.orgId })}
              notice={refusalNotice({ kind: 'organization', orgId: access.orgId })}
              now={now}
            />
            <p className="muted">Personal keys are not listed: only their owner’s personal key can see them.</p>
          </>
        )}
      </>
    );
  }

  return (
    <section className="api-keys">
      <h1 tabIndex={-1}>API keys</h1>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {content}
      {confirming && (
        <RevokeDialog
          apiKey={confirming.key}
          ownerLabel={describeOwner(confirming.ownerLabel)}
          projectLabel={confirming.key.project_id}
          fallbackFocus={confirming.heading}
          pending={revoke.isPending}
          onConfirm={() => void confirmRevoke(confirming)}
          onCancel={() => setConfirming(null)}
        />
      )}
      {revealed && <SecretDialog created={revealed.created} ownerLabel={revealed.ownerLabel} onClose={() => setRevealed(null)} />}
    </section>
  );
}
