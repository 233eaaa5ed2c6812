// Which addresses a webhook may reach (docs/notifications.md): none that is loopback, private, link-local, shared
// (CGNAT), multicast, reserved or unspecified, in IPv4 or IPv6, including IPv4 written inside IPv6, checked
// as the IPv4 it carries (mapped ::ffff:a.b.c.d, translated ::ffff:0:a.b.c.d, compatible ::a.b.c.d, NAT64
// 64:ff9b::/96 and the local-use 64:ff9b:1::/48, 6to4 2002::/16). Unless
// WEBHOOK_ALLOW_PRIVATE=1, which tests and receivers on the same network set.
import { isIPv4, isIPv6 } from 'node:net';

type Range = readonly [prefix: readonly number[], bits: number];

const V4_BLOCKED: readonly Range[] = [
  [[0, 0, 0, 0], 8], // "this" network, 0.0.0.0
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10], // shared address space (CGNAT)
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16], // link-local, cloud metadata
  [[172, 16, 0, 0], 12],
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // documentation
  [[192, 88, 99, 0], 24], // 6to4 relay anycast
  [[192, 168, 0, 0], 16],
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24],
  [[203, 0, 113, 0], 24],
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, broadcast
];

const V6_BLOCKED: readonly Range[] = [
  [[0xfc], 7], // unique local
  [[0xfe, 0x80], 10], // link-local
  [[0xfe, 0xc0], 10], // site-local (deprecated, still routed privately)
  [[0xff], 8], // multicast
  [[0x20, 0x01, 0x0d, 0xb8], 32], // documentation
  [[0x01, 0, 0, 0, 0, 0, 0, 0], 64], // discard-only
];

function inRange(bytes: readonly number[], [prefix, bits]: Range): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i / 8] ?? 0) & mask) !== ((prefix[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function v4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (with a zone id dropped and a dotted IPv4 tail read). */
export function v6Bytes(address: string): number[] {
  // A dotted IPv4 tail (::ffff:127.0.0.1) is two more 16-bit groups.
  const text = (address.split('%')[0] ?? '').replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_all, a: string, b: string, c: string, d: string) =>
    [((Number(a) << 8) | Number(b)).toString(16), ((Number(c) << 8) | Number(d)).toString(16)].join(':'),
  );
  const [head = '', rest] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const words = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

function blockedV4(bytes: readonly number[]): boolean {
  return V4_BLOCKED.some((range) => inRange(bytes, range));
}

const zeros = (bytes: readonly number[], from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);

/**
 * Where RFC 6052 puts the IPv4 address inside a NAT64 prefix of each length (the byte after the first 64 bits,
 * "u", and the suffix are zero), as [bytes of the IPv4 address, bytes that must be zero].
 */
const NAT64_LAYOUTS: Record<48 | 56 | 64 | 96, readonly [v4: readonly number[], zero: readonly number[]]> = {
  48: [
    [6, 7, 9, 10],
    [8, 11, 12, 13, 14, 15],
  ],
  56: [
    [7, 9, 10, 11],
    [8, 12, 13, 14, 15],
  ],
  64: [
    [9, 10, 11, 12],
    [8, 13, 14, 15],
  ],
  96: [[12, 13, 14, 15], []],
};

/** The IPv4 addresses a NAT64 address may carry under prefix lengths `lengths`: every layout its zero bits allow. */
function nat64Readings(bytes: readonly number[], lengths: readonly (48 | 56 | 64 | 96)[]): number[][] {
  return lengths
    .map((length) => NAT64_LAYOUTS[length])
    .filter(([, zero]) => zero.every((i) => bytes[i] === 0))
    .map(([v4]) => v4.map((i) => bytes[i] ?? 0));
}

/**
 * The IPv4 addresses an IPv6 one carries (mapped ::ffff:a.b.c.d, translated ::ffff:0:a.b.c.d, compatible
 * ::a.b.c.d, NAT64 64:ff9b::/96 and the local-use 64:ff9b:1::/48 under each prefix length it may be used with,
 * 6to4), or undefined when it carries none. An empty list: a NAT64 address no layout reads (blocked).
 */
function embeddedV4(bytes: readonly number[]): number[][] | undefined {
  if (zeros(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return [bytes.slice(12)];
  if (zeros(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(bytes, 10, 12)) return [bytes.slice(12)];
  if (zeros(bytes, 0, 12)) return [bytes.slice(12)];
  if (inRange(bytes, [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48])) {
    // A network may use a /48, /56, /64 or /96 inside the local-use prefix: every reading its zero bits allow must pass.
    return nat64Readings(bytes, [48, 56, 64, 96]);
  }
  // The well-known prefix is used only as a /96; the rest of 64:ff9b::/32 is reserved (read as no IPv4: blocked).
  if (inRange(bytes, [[0x00, 0x64, 0xff, 0x9b], 32])) return inRange(bytes, [[0x00, 0x64, 0xff, 0x9b], 96]) ? [bytes.slice(12)] : [];
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return [bytes.slice(2, 6)];
  return undefined;
}

/** Whether a literal IP address is one a webhook may not reach (anything that is not an IP address counts as blocked). */
export function isBlockedAddress(address: string): boolean {
  if (isIPv4(address)) return blockedV4(v4Bytes(address));
  if (!isIPv6(address)) return true;
  const bytes = v6Bytes(address);
  const v4 = embeddedV4(bytes);
  // ::, ::1 and the compatible range fall here: 0.0.0.0/8 is blocked. Every reading must pass, and at least one must exist.
  if (v4) return v4.length === 0 || v4.some(blockedV4);
  return V6_BLOCKED.some((range) => inRange(bytes, range));
}
