import { getPrisma } from "../db/prisma";
import type { ScopeCatalog } from "../auth/scope-catalog";
import { isPlainText } from "../text/plain-text";
import { OFFLINE_ACCESS, RETURN_TO } from "./paths";

/**
 * What the sign-in and consent pages show about a request: the app asking (from its
 * registration) and the scopes in words. Nothing here is trusted for a decision: the signed query
 * the forms pass back is what better-auth checks.
 */

export interface AskingClient {
  name: string;
}

/** The registered client `clientId`, or undefined for an unknown id (one that is not plain text is never looked up: PostgreSQL refuses a NUL). */
export async function askingClient(clientId: string | undefined): Promise<AskingClient | undefined> {
  if (!clientId || clientId.length > 256 || !isPlainText(clientId)) return undefined;
  const prisma = await getPrisma();
  const client = await prisma.oauthClient.findUnique({ where: { clientId }, select: { name: true, clientId: true } });
  if (!client) return undefined;
  return { name: client.name?.trim() || `Application ${client.clientId.slice(0, 8)}` };
}

/**
 * Where the answer goes, as the person should see it: the redirect URI's host (an app's name is
 * whatever it registered, so "ChatGPT" proves nothing; the host it returns to does), or a native
 * app's private-use scheme. Undefined when there is no usable redirect URI.
 */
export function redirectDestination(redirectUri: string | undefined): string | undefined {
  if (!redirectUri || redirectUri.length > 2048) return undefined;
  try {
    const url = new URL(redirectUri);
    if (url.protocol === "https:" || url.protocol === "http:") return url.host;
    return `the app that opens ${url.protocol.slice(0, -1)} links`;
  } catch {
    return undefined;
  }
}

export interface ScopeLine {
  name: string;
  description: string;
}

/** The requested scopes in the catalog's words; unknown ones are listed by name. */
export function describeScopes(catalog: ScopeCatalog, scope: string | undefined): ScopeLine[] {
  const names = [...new Set((scope ?? "").split(" ").filter(Boolean))];
  return names.map((name) => ({
    name,
    description:
      name === OFFLINE_ACCESS
        ? "Stay connected: keep access while you are away, until you revoke it"
        : catalog.find((s) => s.name === name)?.description ?? name,
  }));
}

/** The page's query as one string, without the parameters our own forms add (error, email, returnTo). */
export function flowQuery(params: Record<string, string | string[] | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (key === "error" || key === "email" || key === RETURN_TO || value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) query.append(key, v);
  }
  return query.toString();
}

export function firstParam(params: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = params[name];
  return Array.isArray(value) ? value[0] : value;
}
