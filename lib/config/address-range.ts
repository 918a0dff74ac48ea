import { BlockList } from "node:net";
import { family, normalized, parseRange } from "./address-parse.mjs";

/**
 * Which addresses are whose: a deployment's own list (MCP_TRUSTED_PROXIES, parsed in
 * address-parse.mjs so the node front reads it the same way) and the ranges no server-side fetch
 * may reach. At the bottom floor, so config imports nothing above it.
 */

/** Whether MCP_TRUSTED_PROXIES may hold `entry` (lib/config/env.ts validates with this). */
export function isAddressOrRange(entry: string): boolean {
  return parseRange(entry) !== undefined;
}

/**
 * Ranges no server-side fetch of a user-supplied URL may reach (SSRF): this host, private
 * networks, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, benchmarking,
 * multicast and reserved space (RFC 6890 special-purpose registries), and IPv6's loopback,
 * unique-local, link-local, site-local, multicast, NAT64, 6to4, IPv4-compatible and IPv4-translated
 * (whose embedded IPv4 could be any of the former). IPv4-mapped IPv6 (`::ffff:10.0.0.1`, `::ffff:a00:1`) is judged as its IPv4 (BlockList would
 * also match every IPv4 against an IPv6 rule for ::ffff:0:0/96, so that range is not listed).
 * Any other IPv6 address outside global unicast (2000::/3) is non-public too, and inside it the
 * IETF protocol block 2001::/23 (Teredo, whose address embeds an IPv4 server, ORCHID, benchmarking)
 * and the documentation ranges (outside audit: Teredo with 127.0.0.1 inside was connected to).
 */
const NON_PUBLIC_V4: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  // The deprecated 6to4 relay anycast (RFC 7526): a relay into whatever IPv4 the packet names.
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];
const NON_PUBLIC_V6: [string, number][] = [
  // ::/96 holds :: and ::1, and the deprecated IPv4-compatible form (::10.0.0.1, RFC 4291 §2.5.5.1)
  // a host may still translate to its IPv4; ::ffff:0:0:0/96 is SIIT's IPv4-translated form
  // (RFC 2765 §2.1). Neither contains the IPv4-mapped ::ffff:0:0/96, so no IPv4 matches them.
  ["::", 96],
  ["::ffff:0:0:0", 96],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["3fff::", 20],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
];
const LOOPBACK_V4: [string, number] = ["127.0.0.0", 8];

const nonPublic = new BlockList();
for (const [a, bits] of NON_PUBLIC_V4) nonPublic.addSubnet(a, bits, "ipv4");
for (const [a, bits] of NON_PUBLIC_V6) nonPublic.addSubnet(a, bits, "ipv6");
const globalUnicastV6 = new BlockList();
globalUnicastV6.addSubnet("2000::", 3, "ipv6");
const loopback = new BlockList();
loopback.addSubnet(...LOOPBACK_V4, "ipv4");
loopback.addAddress("::1", "ipv6");

/** The IPv4 inside an IPv4-mapped IPv6 address in either spelling, else the address itself. */
function unmapped(address: string): string {
  const plain = normalized(address);
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(plain);
  if (!hex) return plain;
  const high = parseInt(hex[1] as string, 16);
  const low = parseInt(hex[2] as string, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** Whether `address` (an IP literal) is anything but a public unicast address; a non-IP is non-public too. */
export function isNonPublicAddress(address: string): boolean {
  const plain = unmapped(address.replace(/^\[|\]$/g, ""));
  const kind = family(plain);
  if (!kind) return true;
  if (kind === "ipv6" && !globalUnicastV6.check(plain, kind)) return true;
  return nonPublic.check(plain, kind);
}

/** Whether `address` is this host (127.0.0.0/8, ::1, or either mapped). */
export function isLoopbackAddress(address: string): boolean {
  const plain = unmapped(address.replace(/^\[|\]$/g, ""));
  const kind = family(plain);
  return kind !== undefined && loopback.check(plain, kind);
}
