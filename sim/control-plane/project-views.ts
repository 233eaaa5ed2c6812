// How a project reads on the wire: the list item of GET /projects, and the details of GET /projects/{id}.
import { wireTime, type WireProject, type WireProjectListItem } from '../wire';
import { regionParts, type ProjectRecord, type World } from './world';

export function projectListItem(world: World, project: ProjectRecord): WireProjectListItem {
  const { platform, host } = regionParts(project.regionId);
  const lastActive = Math.max(0, ...world.liveEndpoints((e) => e.projectId === project.id).map((e) => e.lastActiveMs ?? 0));
  const item: WireProjectListItem = {
    id: project.id,
    name: project.name,
    platform_id: platform,
    region_id: project.regionId,
    provisioner: 'k8s-neonvm',
    pg_version: project.pgVersion,
    locked: project.locked,
    cpu_used_sec: project.cpuUsedSec,
    active_time: Math.round(project.cpuUsedSec * 1.5),
    proxy_host: host,
    branch_logical_size_limit: 10_240,
    branch_logical_size_limit_bytes: 10_240 * 1024 * 1024,
    store_passwords: true,
    creation_source: 'console',
    history_retention_seconds: 86_400,
    owner_id: project.orgId ?? project.ownerUserId,
    default_endpoint_settings: { autoscaling_limit_min_cu: 0.25, autoscaling_limit_max_cu: 2, suspend_timeout_seconds: 0 },
    settings: { allowed_ips: { ips: [], protected_branches_only: false }, enable_logical_replication: false },
    created_at: wireTime(project.createdAtMs),
    updated_at: wireTime(project.updatedAtMs),
  };
  if (lastActive > 0) item.compute_last_active_at = wireTime(lastActive);
  if (project.orgId !== null) {
    item.org_id = project.orgId;
    item.org_name = world.orgs.get(project.orgId)?.name ?? '';
  }
  return item;
}

export function projectView(world: World, project: ProjectRecord): WireProject {
  const t = new Date(world.now());
  const periodStart = Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), 1);
  const periodEnd = Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 1);
  const owner = world.users.get(project.ownerUserId);
  const org = project.orgId === null ? undefined : world.orgs.get(project.orgId);
  const item = projectListItem(world, project);
  return {
    ...item,
    active_time_seconds: item.active_time,
    compute_time_seconds: project.cpuUsedSec,
    written_data_bytes: project.cpuUsedSec * 4096,
    data_transfer_bytes: project.cpuUsedSec * 1024,
    data_storage_bytes_hour: project.cpuUsedSec * 30_000,
    consumption_period_start: wireTime(periodStart),
    consumption_period_end: wireTime(periodEnd),
    owner: {
      email: owner?.email ?? '',
      name: owner?.name ?? '',
      branches_limit: 5000,
      subscription_type: org ? (org.plan === 'scale' ? 'scale_v3' : 'launch_v3') : 'free_v3',
    },
  };
}
