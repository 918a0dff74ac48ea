import type { BlockList } from "node:net";
import { family, inRangeList, normalized, rangeListOf } from "../config/address-parse.mjs";
import type { Env } from "../config/env";
import { trustedPeerHeader } from "./trusted-host.mjs";

/**
 * The client's address for anonymous rate limits, from sources the client cannot choose: the
 * socket (the node adapter hands it over; under `npm start`, lib/http/trusted-host.mjs puts it
 * in a header only this process knows), and a forwarding header only when that socket is a proxy
 * the deployment trusts (MCP_TRUSTED_PROXIES), or on Vercel, whose edge sets x-vercel-forwarded-for
 * and x-forwarded-for itself. Anything else a client sends (X-Forwarded-For, X-Real-IP, a
 * `_meta` hint) is ignored: a fresh value per request would be a fresh budget.
 */

export interface ClientAddressPolicy {
  /** Proxies whose X-Forwarded-For is believed: addresses and CIDR ranges. */
  trustedProxies: BlockList;
  /** On Vercel (VERCEL=1): the platform's forwarding headers are the client's address. */
  vercel: boolean;
}

/** Where no trusted source says who the client is, all such callers share one budget. */
export const UNKNOWN_ADDRESS = "unknown";

const policies = new WeakMap<object, ClientAddressPolicy>();

/** The deployment's policy (MCP_TRUSTED_PROXIES, VERCEL), built once per loaded configuration. */
export function clientAddressPolicyOf(env: Pick<Env, "MCP_TRUSTED_PROXIES" | "VERCEL">): ClientAddressPolicy {
  let policy = policies.get(env);
  if (!policy) {
    policy = { trustedProxies: rangeListOf(env.MCP_TRUSTED_PROXIES), vercel: env.VERCEL === "1" };
    policies.set(env, policy);
  }
  return policy;
}

function isTrusted(address: string, policy: ClientAddressPolicy): boolean {
  return inRangeList(policy.trustedProxies, address);
}

/**
 * Whether the request's forwarding headers (X-Forwarded-For, -Host, -Proto) were written by
 * someone the deployment trusts: Vercel's edge, or a listed proxy that is the socket's peer.
 * Anyone else may have written them.
 */
export function forwardingTrusted(peer: string | undefined, policy: ClientAddressPolicy): boolean {
  return policy.vercel || (peer !== undefined && isTrusted(peer, policy));
}

/**
 * X-Forwarded-For read from the right (the entry our proxy appended) leftwards, past every
 * trusted proxy: the first address not ours is the client's. Entries left of it are the
 * client's own claims.
 */
function forwardedClient(forwarded: string, policy: ClientAddressPolicy): string | undefined {
  const hops = forwarded.split(",").map(normalized).filter((h) => h.length > 0);
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = hops[i] as string;
    if (!family(hop)) return undefined;
    if (!isTrusted(hop, policy)) return hop;
  }
  return hops[0];
}

/** The socket's address as the host reported it: handed over (node adapter) or in the trusted header. */
export function peerAddressOf(headers: Pick<Headers, "get">, given: string | undefined): string | undefined {
  if (given) return normalized(given);
  const header = trustedPeerHeader();
  const value = header ? headers.get(header) : null;
  return value ? normalized(value) : undefined;
}

/** The client's address, bounded in length; UNKNOWN_ADDRESS when no trusted source tells. */
export function clientAddressOf(request: Request, peer: string | undefined, policy: ClientAddressPolicy): string {
  if (policy.vercel) {
    const forwarded = request.headers.get("x-vercel-forwarded-for") ?? request.headers.get("x-forwarded-for");
    const first = forwarded?.split(",", 1)[0]?.trim();
    if (first) return first.slice(0, 64);
  }
  if (!peer) return UNKNOWN_ADDRESS;
  if (isTrusted(peer, policy)) {
    const forwarded = request.headers.get("x-forwarded-for");
    const client = forwarded ? forwardedClient(forwarded, policy) : undefined;
    if (client) return client.slice(0, 64);
  }
  return peer.slice(0, 64);
}
