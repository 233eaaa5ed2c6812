import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo, type ReactNode } from 'react';
import { projectQueries } from '../../api/projects';
import type { ApiKey } from '../../api/schemas';
import { KeysSection } from './keys-section';
import type { SessionKeyKind } from './refusal';

interface OrganizationKeysSectionProps {
  orgId: string;
  orgName: string;
  sessionKind: SessionKeyKind;
  onRevoke?: ((key: ApiKey, trigger: HTMLElement) => void) | undefined;
  notice?: ReactNode;
  whenForbidden?: ReactNode;
  listing?: 'fetch' | 'wait' | 'forbidden';
  now: number;
}

/** An organization's keys, project-scoped ones marked with their project's name. */
export function OrganizationKeysSection({ orgId, orgName, ...rest }: OrganizationKeysSectionProps) {
  const projects = useInfiniteQuery(projectQueries.list(orgId));
  const projectNames = useMemo(() => new Map(projects.data?.pages.flatMap((page) => page.projects.map((p) => [p.id, p.name] as const))), [projects.data]);
  return (
    <KeysSection
      owner={{ kind: 'organization', orgId }}
      ownerLabel={{ kind: 'organization', name: orgName }}
      title={`${orgName} keys`}
      emptyText={`No keys for ${orgName} yet.`}
      projectNames={projectNames}
      {...rest}
    />
  );
}
