// What a host or address names, in every spelling: the server's Host check, its metrics' "this machine only",
// its links and listening address, and the simulator's fault control all ask here. Pure: no DNS, no Node.

/** An IPv6 address as its eight 16-bit groups (a dotted IPv4 tail read as two), or undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address;
  const v4 = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const octets = v4.slice(2).map(Number);
    if (octets.some((octet) => octet > 255)) return undefined;
    const [a = 0, b = 0, c = 0, d = 0] = octets;
    text = `${v4[1] ?? ''}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  const head = parse(halves[0] ?? '');
  const tail = halves.length === 2 ? parse(halves[1] ?? '') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return undefined;
  return groups.map((group) => parseInt(group, 16));
}

/** A host as given in a URL or a Host header, or an address: lower case, without brackets or an IPv6 zone. */
function bare(host: string): string {
  const name = host.trim().toLowerCase();
  const unbracketed = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  return unbracketed.replace(/%.*$/, '');
}

const isLoopbackV4 = (address: string) => /^127(?:\.\d{1,3}){3}$/.test(address);

/**
 * This machine: `localhost` and names below it, 127.0.0.0/8, ::1 in any spelling (0:0:0:0:0:0:0:1), and IPv4
 * loopback written as IPv6 (::ffff:127.0.0.1).
 */
export function isLoopbackHost(host: string): boolean {
  const name = bare(host);
  if (name === 'localhost' || name.endsWith('.localhost') || isLoopbackV4(name)) return true;
  const groups = ipv6Groups(name);
  if (!groups) return false;
  const zeros = (count: number) => groups.slice(0, count).every((group) => group === 0);
  if (zeros(7) && groups[7] === 1) return true;
  // IPv4-mapped: ::ffff:a.b.c.d, loopback when a is 127.
  return zeros(5) && groups[5] === 0xffff && (groups[6] ?? 0) >> 8 === 127;
}

/** A bind address that means every interface: empty, 0.0.0.0, or :: in any spelling (0:0:0:0:0:0:0:0). */
export function isWildcardHost(host: string): boolean {
  const name = bare(host);
  if (name === '' || name === '0.0.0.0') return true;
  return ipv6Groups(name)?.every((group) => group === 0) ?? false;
}

/** A host as a URL's authority writes it: an IPv6 address in brackets, anything else as it is. */
export function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** `host:port`, an IPv6 address in brackets. */
export function hostPort(host: string, port: number | string): string {
  return `${bracketed(host)}:${port}`;
}
