import { BlockList, isIP } from 'node:net';

/**
 * Which addresses the crawler may connect to: the public Internet only. The tables follow the IANA
 * special-purpose address registries (RFC 6890 and successors); an IPv6 address that embeds an
 * IPv4 address (mapped, compatible, NAT64, 6to4) is judged by the IPv4 address it leads to.
 */
const BLOCKED_V4: readonly string[] = [
  '0.0.0.0/8', // "this network", unspecified
  '10.0.0.0/8', // RFC 1918
  '100.64.0.0/10', // CGNAT shared space
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local
  '172.16.0.0/12', // RFC 1918
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // TEST-NET-1
  '192.88.99.0/24', // 6to4 relay anycast (deprecated)
  '192.168.0.0/16', // RFC 1918
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // TEST-NET-2
  '203.0.113.0/24', // TEST-NET-3
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and 255.255.255.255 broadcast
];

// Only 2000::/3 is allocated for global unicast; everything outside it is blocked (loopback,
// unspecified, ULA fc00::/7, link-local fe80::/10, multicast ff00::/8, ...) except the prefixes
// that embed IPv4, which are decided before this table is consulted.
const BLOCKED_V6: readonly string[] = [
  '::/3',
  '4000::/2',
  '8000::/1',
  '2001::/23', // IETF protocol assignments: Teredo, benchmarking, ORCHID
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation (RFC 9637)
];

function blockList(ranges: readonly string[], type: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [net, bits] = range.split('/');
    list.addSubnet(net, Number(bits), type);
  }
  return list;
}

const V4 = blockList(BLOCKED_V4, 'ipv4');
const V6 = blockList(BLOCKED_V6, 'ipv6');

/** The sixteen bytes of an IPv6 address (dotted IPv4 tail allowed); null when it is not one. */
function ipv6Bytes(address: string): Uint8Array | null {
  if (isIP(address) !== 6) return null;
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups =
    tail === null
      ? headGroups
      : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = Number.parseInt(g, 16);
    bytes[2 * i] = v >> 8;
    bytes[2 * i + 1] = v & 0xff;
  });
  return bytes;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

function dottedAt(bytes: Uint8Array, offset: number): string {
  return Array.from(bytes.subarray(offset, offset + 4)).join('.');
}

/** The IPv4 address an IPv6 address leads to (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIpv4(bytes: Uint8Array): string | null {
  const zeros10 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  if (startsWith(bytes, [...zeros10, 0xff, 0xff])) return dottedAt(bytes, 12); // ::ffff:0:0/96
  if (startsWith(bytes, [...zeros10, 0, 0])) {
    // ::/96 "IPv4-compatible"; :: and ::1 themselves stay IPv6 and fall to the blocked table
    return bytes[12] === 0 && bytes[13] === 0 && bytes[14] === 0 ? null : dottedAt(bytes, 12);
  }
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return dottedAt(bytes, 12); // 64:ff9b::/96
  if (startsWith(bytes, [0x20, 0x02])) return dottedAt(bytes, 2); // 2002::/16 6to4
  return null;
}

/** True when connecting to `address` (an IP literal, no brackets) would leave the public Internet. */
export function isBlockedAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  const family = isIP(ip);
  if (family === 4) return V4.check(ip, 'ipv4');
  const bytes = ipv6Bytes(ip);
  if (!bytes) return true; // not an IP at all: never connect to what we cannot judge
  const v4 = embeddedIpv4(bytes);
  if (v4 !== null) return V4.check(v4, 'ipv4');
  return V6.check(ip, 'ipv6');
}
