import { hostPort, isWildcardHost } from '../../src/lib/hosts';
import type { ServerConfig } from '../config';

/**
 * Where the links events carry point: PUBLIC_URL, else the address this server listens on (loopback when it
 * binds every interface: a receiver elsewhere needs PUBLIC_URL, docs/notifications.md).
 */
export function linkBase(config: Pick<ServerConfig, 'publicUrl' | 'host' | 'port'>): URL {
  if (config.publicUrl) return new URL(config.publicUrl.href);
  const host = isWildcardHost(config.host) ? '127.0.0.1' : config.host;
  return new URL(`http://${hostPort(host, config.port)}/`);
}
