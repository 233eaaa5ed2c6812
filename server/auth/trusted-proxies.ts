// TRUSTED_PROXIES (docs/team.md, "Behind an identity proxy"): the CIDRs whose connections may name a person in
// identity headers. IPv4 and IPv6, an IPv4 address mapped into IPv6 (`::ffff:127.0.0.1`) read as IPv4. Matching is
// Node's own BlockList.
import { BlockList, isIP } from 'node:net';

/** Loopback only: the default, a proxy on this machine. */
export const DEFAULT_TRUSTED_PROXIES = '127.0.0.1/8,::1/128';

export interface TrustedProxies {
  /** Whether a connection from `address` (the socket's remote address) may name a person. */
  trusts: (address: string | undefined) => boolean;
  /** The CIDRs as given (the banner and docs say them). */
  cidrs: readonly string[];
}

/** `::ffff:1.2.3.4` is the IPv4 address 1.2.3.4; anything else as it is, without an IPv6 zone. */
export function plainAddress(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  return mapped?.[1] ?? bare;
}

/** Parses TRUSTED_PROXIES; `*` and a whole address space (`0.0.0.0/0`, `::/0`) are refused: any client could name anyone. */
export function parseTrustedProxies(text: string = DEFAULT_TRUSTED_PROXIES): TrustedProxies {
  const list = new BlockList();
  const cidrs = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (cidrs.length === 0) throw new Error('TRUSTED_PROXIES names no address (e.g. TRUSTED_PROXIES=10.0.0.5/32).');
  for (const cidr of cidrs) {
    if (cidr === '*') throw new Error('TRUSTED_PROXIES=* is refused: any client could sign in as anyone. Name your proxy’s addresses (CIDRs).');
    const [rawAddress = '', prefixText] = cidr.split('/');
    const address = plainAddress(rawAddress);
    const family = isIP(address);
    if (family === 0) throw new Error(`TRUSTED_PROXIES: "${cidr}" is not an address or CIDR.`);
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (!/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) throw new Error(`TRUSTED_PROXIES: "${cidr}" has no valid prefix length (0 to ${max}).`);
    if (prefix === 0) throw new Error(`TRUSTED_PROXIES: "${cidr}" is every address and is refused: any client could sign in as anyone.`);
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return {
    cidrs,
    trusts(remote) {
      if (!remote) return false;
      const address = plainAddress(remote);
      const family = isIP(address);
      if (family === 0) return false;
      return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
