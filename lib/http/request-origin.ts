import { forwardingTrusted, peerAddressOf, type ClientAddressPolicy } from "./client-address";

/**
 * The origin a client reached this app at, from sources it cannot choose to mislead others with:
 * X-Forwarded-Host and X-Forwarded-Proto only when a trusted source wrote them (Vercel's edge, or
 * a proxy in MCP_TRUSTED_PROXIES as the socket's peer: lib/http/client-address.ts); otherwise the
 * Host the socket got, over plain http (`npm start` serves no TLS).
 *
 * Host is part of every cache's key (RFC 9111 §2: the target URI), forwarding headers are not: a
 * document built from them must name them in Vary (RFC 9111 §4.1), which `varyOn` lists.
 */
export interface RequestOrigin {
  /** `scheme://host[:port]`, lowercase. */
  origin: string;
  /** The request header fields the origin was taken from besides Host. */
  varyOn: readonly string[];
}

const FORWARDED_FIELDS = ["X-Forwarded-Host", "X-Forwarded-Proto"] as const;

/** Only a plain host[:port] (or [IPv6]:port): anything else in a Host header is not believed. */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The last value of a possibly comma-separated forwarding header: the one the nearest proxy,
 * the trusted one, wrote. Values left of it came from further away, perhaps from the client.
 */
function lastValue(value: string | null): string | undefined {
  const last = value?.split(",").at(-1)?.trim();
  return last ? last : undefined;
}

export function requestOriginOf(headers: Pick<Headers, "get">, policy: ClientAddressPolicy): RequestOrigin | undefined {
  const forwarded = forwardingTrusted(peerAddressOf(headers, undefined), policy);
  const host = (forwarded ? lastValue(headers.get("x-forwarded-host")) : undefined) ?? headers.get("host")?.trim();
  const proto = (forwarded ? lastValue(headers.get("x-forwarded-proto")) : undefined) ?? "http";
  if (!host || !HOST.test(host) || (proto !== "http" && proto !== "https")) return undefined;
  try {
    return { origin: new URL(`${proto}://${host}`).origin, varyOn: forwarded ? FORWARDED_FIELDS : [] };
  } catch {
    // Shaped like a host but still no URL (a port past 65535).
    return undefined;
  }
}
