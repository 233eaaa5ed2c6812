// The start-up banner, written here once: what `npm start` prints however many processes serve (one, or
// several instances whose primary prints it once the first listens).
import type { ServerConfig } from '../config';
import { isLoopbackHost, isWildcardHost } from '../../src/lib/hosts';
import { answeredHosts, type HostRules } from '../http/host-check';
import { secretBannerLine, type ResolvedSecret } from '../session/session-secret';

export interface BannerFacts {
  url: string;
  config: ServerConfig;
  /** The API backend's lines: its mode, and how to use it (the demo key). */
  backend: readonly string[];
  /** Where the simulator's fault control answers, when it is mounted. */
  faultControl: string | undefined;
  secret: ResolvedSecret;
  /** Where the store is (PGlite's folder, or the Postgres server's host and database). */
  store: string;
  /** Several instances: how many. */
  instances?: number;
  /** Why fewer processes serve than WEB_CONCURRENCY asked for. */
  processNote?: string | undefined;
}

export function bannerLines({ url, config, backend, faultControl, secret, store, instances, processNote }: BannerFacts): string[] {
  const lines = [`Ops Console: ${url}`];
  if (instances !== undefined) lines.push(`Instances: ${instances} processes (WEB_CONCURRENCY), sharing the store`);
  if (processNote) lines.push(processNote);
  lines.push(...backend);
  lines.push(`Store: ${store}`);
  if (faultControl) lines.push(`Fault injection: ${faultControl} (see docs/simulator.md)`);
  const secretLine = secretBannerLine(secret);
  if (secretLine) lines.push(secretLine);
  if (!isLoopbackHost(config.host))
    lines.push('Sessions: serve this over https (a TLS proxy sending X-Forwarded-Proto): on plain http the cookie cannot be Secure');
  if (isWildcardHost(config.host)) {
    const rules: HostRules = { bindHost: config.host, publicUrl: config.publicUrl, allowedHosts: config.allowedHosts };
    const others = answeredHosts(rules);
    lines.push(
      `Hosts answered: loopback names${others.length > 0 ? `, ${others.join(', ')}` : ''}; any other name gets 421: add the one people use to ALLOWED_HOSTS (comma-separated) or set PUBLIC_URL`,
    );
  }
  return lines;
}

export function formatBanner(lines: readonly string[]): string {
  return `\n${lines.map((line) => `  ${line}`).join('\n')}\n`;
}
