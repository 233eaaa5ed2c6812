// The Host header must name a host the console is served on, or a page of another site could reach it
// by DNS rebinding (its own name, resolved to 127.0.0.1) and read the API or set /__sim/faults. Answered:
// loopback names and addresses, the address HOST binds (or, bound to every interface, this machine's
// addresses), PUBLIC_URL's host, and ALLOWED_HOSTS. Ports are not compared: a rebinding attack needs a
// name of the attacker's, never one of these, and a TLS proxy in front may use any port.
import { networkInterfaces } from 'node:os';
import { bracketed, isLoopbackHost, isWildcardHost } from '../../src/lib/hosts';

export const MISDIRECTED =
  'This console does not answer for that host name (a page of another site may be trying to reach it). Its operator can add the name to ALLOWED_HOSTS.';

/** The host name of a Host header (or of an ALLOWED_HOSTS entry): lower case, no port, no brackets, no final dot. */
export function hostNameOf(value: string | undefined): string | undefined {
  const host = value?.trim().toLowerCase();
  if (!host) return undefined;
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, '');
  return name.replace(/\.$/, '') || undefined;
}

export interface HostRules {
  /** HOST: a specific address or name is answered; a wildcard adds this machine's own addresses. */
  bindHost: string;
  publicUrl?: URL | undefined;
  /** ALLOWED_HOSTS: names (or addresses); `.example.com` also takes every name below it. */
  allowedHosts?: readonly string[];
  /** This machine's addresses (os.networkInterfaces by default). */
  interfaceAddresses?: () => string[];
}

function machineAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address.toLowerCase()));
}

/** The hosts answered besides loopback, for the banner: exact names, and `.suffix` entries. */
export function answeredHosts({ bindHost, publicUrl, allowedHosts = [], interfaceAddresses = machineAddresses }: HostRules): string[] {
  const hosts = new Set<string>();
  if (isWildcardHost(bindHost)) for (const address of interfaceAddresses()) hosts.add(address);
  else hosts.add(hostNameOf(bracketed(bindHost)) ?? bindHost);
  const publicHost = hostNameOf(publicUrl?.host);
  if (publicHost) hosts.add(publicHost);
  for (const entry of allowedHosts) {
    const name = entry.trim().startsWith('.') ? `.${hostNameOf(entry.trim().slice(1)) ?? ''}` : hostNameOf(entry);
    if (name && name !== '.') hosts.add(name);
  }
  return [...hosts].filter((host) => !isLoopbackHost(host));
}

/** Whether a request's Host header names a host this console is served on. */
export function createHostCheck(rules: HostRules): (hostHeader: string | undefined) => boolean {
  const hosts = answeredHosts(rules);
  const exact = new Set(hosts.filter((host) => !host.startsWith('.')));
  const suffixes = hosts.filter((host) => host.startsWith('.'));
  return (hostHeader) => {
    const name = hostNameOf(hostHeader);
    if (name === undefined) return false;
    return isLoopbackHost(name) || exact.has(name) || suffixes.some((suffix) => name.endsWith(suffix));
  };
}
