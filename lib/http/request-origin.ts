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
  /** `scheme://host[:port]`, lowercase; undefined when what the sources say is no origin. */
  origin: string | undefined;
  /**
   * The request header fields read besides Host, believed or not: a document built from the
   * fallback still depended on them (a trusted proxy that sent a bad value gets the fallback).
   */
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

export function requestOriginOf(headers: Pick<Headers, "get">, policy: ClientAddressPolicy): RequestOrigin {
  const forwarded = forwardingTrusted(peerAddressOf(headers, undefined), policy);
  const varyOn = forwarded ? FORWARDED_FIELDS : [];
  const host = (forwarded ? lastValue(headers.get("x-forwarded-host")) : undefined) ?? headers.get("host")?.trim();
  // Schemes are case-insensitive (RFC 3986 §3.1): "HTTPS" is https.
  const proto = ((forwarded ? lastValue(headers.get("x-forwarded-proto")) : undefined) ?? "http").toLowerCase();
  if (!host || !HOST.test(host) || (proto !== "http" && proto !== "https")) return { origin: undefined, varyOn };
  try {
    const url = new URL(`${proto}://${host}`);
    // Port 0 parses, but no client can connect to it.
    return { origin: url.port === "0" ? undefined : url.origin, varyOn };
  } catch {
    // Shaped like a host but still no URL (a port past 65535).
    return { origin: undefined, varyOn };
  }
}
