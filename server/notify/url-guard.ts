// A webhook's URL, checked when it is added and again before every delivery (the name may resolve
// elsewhere by then: DNS rebinding): http(s) only, no credentials, a name that resolves, and no address
// that is loopback or private unless WEBHOOK_ALLOW_PRIVATE=1. Delivery connects to the address checked here.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isBlockedAddress } from './address-guard';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolve = (host: string) => Promise<ResolvedAddress[]>;

export const resolveHost: Resolve = async (host) => {
  const found = await dnsLookup(host, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export type UrlCheck = { ok: true; url: URL; address: ResolvedAddress } | { ok: false; problem: string };

export interface UrlGuardOptions {
  allowPrivate: boolean;
  resolve?: Resolve;
}

/** The URL's host without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Checks `text` as a webhook URL; on success, the address to connect to (every address the name has must pass). */
export async function checkWebhookUrl(text: string, { allowPrivate, resolve = resolveHost }: UrlGuardOptions): Promise<UrlCheck> {
  const url = URL.canParse(text.trim()) ? new URL(text.trim()) : undefined;
  if (!url) return { ok: false, problem: 'Enter a full URL, starting with https://.' };
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, problem: `Only http and https URLs can receive webhooks, not ${url.protocol.replace(/:$/, '')}.` };
  if (url.username !== '' || url.password !== '')
    return { ok: false, problem: 'The URL must not carry a user name or password: put a token in its path or query instead.' };
  const host = bareHost(url);
  let addresses: ResolvedAddress[];
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { ok: false, problem: `The host ${host} does not resolve to an address.` };
  }
  if (!allowPrivate) {
    const blocked = addresses.find(({ address }) => isBlockedAddress(address));
    if (blocked) {
      return {
        ok: false,
        problem: `${host} is a loopback, private or reserved address (${blocked.address}); webhooks go only to public addresses unless the console's server runs with WEBHOOK_ALLOW_PRIVATE=1.`,
      };
    }
  }
  const first = addresses[0];
  return first ? { ok: true, url, address: first } : { ok: false, problem: `The host ${host} does not resolve to an address.` };
}
