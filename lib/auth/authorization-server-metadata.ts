import { z } from "zod";

/**
 * The configured authorization server's metadata (RFC 8414, OpenID Connect Discovery): fetched
 * from the well-known URLs clients would try, validated (its `issuer` must be exactly the one
 * configured), cached, and served again from our origin for clients that look there. A failed
 * refresh keeps serving the last good copy.
 */

const HttpUrl = z.url({ protocol: /^https?$/ });

const MetadataSchema = z.looseObject({
  issuer: HttpUrl,
  authorization_endpoint: HttpUrl.optional(),
  token_endpoint: HttpUrl.optional(),
  jwks_uri: HttpUrl.optional(),
  registration_endpoint: HttpUrl.optional(),
  scopes_supported: z.array(z.string()).optional(),
  response_types_supported: z.array(z.string()).optional(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
});

export type AuthorizationServerMetadata = z.infer<typeof MetadataSchema>;

export interface MetadataSource {
  /** RFC 8414 metadata, else the OpenID configuration. */
  oauth(): Promise<AuthorizationServerMetadata>;
  /** The OpenID configuration, else the RFC 8414 metadata. */
  openid(): Promise<AuthorizationServerMetadata>;
}

export class MetadataUnavailable extends Error {
  override readonly name = "MetadataUnavailable";
}

/**
 * Where clients look (basic/authorization §authorization server metadata discovery): for an
 * issuer with a path, the well-known segment is inserted before the path; OpenID Connect also
 * appends it.
 */
export function discoveryUrls(issuer: string): { oauth: string[]; openid: string[] } {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  const openid = [`${url.origin}/.well-known/openid-configuration${path}`];
  if (path) openid.push(`${url.origin}${path}/.well-known/openid-configuration`);
  return { oauth: [`${url.origin}/.well-known/oauth-authorization-server${path}`], openid };
}

interface CacheEntry {
  value?: AuthorizationServerMetadata;
  fetchedAt: number;
  loading?: Promise<AuthorizationServerMetadata>;
}

export function createMetadataSource(issuer: string, options: { ttlMs: number; timeoutMs: number; fetch?: typeof fetch }): MetadataSource {
  const get = options.fetch ?? fetch;
  const urls = discoveryUrls(issuer);

  async function fetchFirst(candidates: string[]): Promise<AuthorizationServerMetadata> {
    const problems: string[] = [];
    for (const url of candidates) {
      try {
        const res = await get(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(options.timeoutMs), redirect: "error" });
        if (!res.ok) {
          problems.push(`${url}: HTTP ${res.status}`);
          continue;
        }
        const parsed = MetadataSchema.safeParse(await res.json());
        if (!parsed.success) {
          problems.push(`${url}: not valid metadata`);
          continue;
        }
        // RFC 8414 §3.3: the issuer in the document must be identical to the one we trust.
        if (parsed.data.issuer !== issuer) {
          problems.push(`${url}: issuer is ${parsed.data.issuer}, expected ${issuer}`);
          continue;
        }
        return parsed.data;
      } catch (thrown) {
        problems.push(`${url}: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
      }
    }
    throw new MetadataUnavailable(`no usable metadata for ${issuer} (${problems.join("; ")})`);
  }

  function cached(candidates: string[]): () => Promise<AuthorizationServerMetadata> {
    const entry: CacheEntry = { fetchedAt: 0 };
    return async () => {
      const fresh = entry.value && Date.now() - entry.fetchedAt < options.ttlMs;
      if (fresh) return entry.value as AuthorizationServerMetadata;
      entry.loading ??= fetchFirst(candidates)
        .then((value) => {
          entry.value = value;
          entry.fetchedAt = Date.now();
          return value;
        })
        .finally(() => {
          entry.loading = undefined;
        });
      try {
        return await entry.loading;
      } catch (thrown) {
        if (entry.value) return entry.value;
        throw thrown;
      }
    };
  }

  return {
    oauth: cached([...urls.oauth, ...urls.openid]),
    openid: cached([...urls.openid, ...urls.oauth]),
  };
}
