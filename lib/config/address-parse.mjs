/**
 * IP addresses and CIDR ranges as MCP_TRUSTED_PROXIES names them, parsed one way for everyone:
 * the environment's validation (env.ts), the client-address rules (lib/http/client-address.ts),
 * and the connection cap in front of Next (lib/http/connection-cap.mjs). Plain JavaScript because
 * that front runs before Next and loads no TypeScript; the types are in address-parse.d.mts.
 */
import { BlockList, isIP } from "node:net";

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is 10.0.0.1. */
export function normalized(address) {
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  return mapped ? mapped[1] : trimmed;
}

export function family(address) {
  const kind = isIP(address);
  return kind === 4 ? "ipv4" : kind === 6 ? "ipv6" : undefined;
}

/** An address (`10.0.0.1`, `::1`) or a CIDR range (`10.0.0.0/8`, `2001:db8::/32`), parsed; undefined if neither. */
export function parseRange(entry) {
  const [raw = "", prefix] = entry.split("/", 2);
  const address = normalized(raw);
  const kind = family(address);
  if (!kind) return undefined;
  if (prefix === undefined) return { address, bits: undefined, kind };
  const bits = Number(prefix);
  if (!/^\d{1,3}$/.test(prefix) || bits > (kind === "ipv4" ? 32 : 128)) return undefined;
  return { address, bits, kind };
}

/** Addresses and ranges (entries that parse; env.ts has refused the others) as a BlockList to check sockets against. */
export function rangeListOf(entries) {
  const list = new BlockList();
  for (const entry of entries) {
    const range = parseRange(entry);
    if (!range) continue;
    if (range.bits === undefined) list.addAddress(range.address, range.kind);
    else list.addSubnet(range.address, range.bits, range.kind);
  }
  return list;
}

/** Whether `address` (normalized) is in `list`. */
export function inRangeList(list, address) {
  const kind = family(address);
  return kind !== undefined && list.check(address, kind);
}
