import { isIP } from "node:net";

/**
 * IP addresses and CIDR ranges as MCP_TRUSTED_PROXIES names them: parsed here, at the bottom
 * floor, so the environment's validation (env.ts) and the client-address rules (lib/http) read
 * them the same way without config importing anything above it.
 */

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is 10.0.0.1. */
export function normalized(address: string): string {
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  return mapped ? (mapped[1] as string) : trimmed;
}

export function family(address: string): "ipv4" | "ipv6" | undefined {
  const kind = isIP(address);
  return kind === 4 ? "ipv4" : kind === 6 ? "ipv6" : undefined;
}

/** An address (`10.0.0.1`, `::1`) or a CIDR range (`10.0.0.0/8`, `2001:db8::/32`), parsed; undefined if neither. */
export function parseRange(entry: string): { address: string; bits: number | undefined; kind: "ipv4" | "ipv6" } | undefined {
  const [raw = "", prefix] = entry.split("/", 2);
  const address = normalized(raw);
  const kind = family(address);
  if (!kind) return undefined;
  if (prefix === undefined) return { address, bits: undefined, kind };
  const bits = Number(prefix);
  if (!/^\d{1,3}$/.test(prefix) || bits > (kind === "ipv4" ? 32 : 128)) return undefined;
  return { address, bits, kind };
}

/** Whether MCP_TRUSTED_PROXIES may hold `entry` (lib/config/env.ts validates with this). */
export function isAddressOrRange(entry: string): boolean {
  return parseRange(entry) !== undefined;
}

