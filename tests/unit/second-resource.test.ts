import { SignJWT } from "jose";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuthConfigError, resolveAuthSettings } from "../../lib/auth/auth-settings";
import { protectedResourceMetadataRoute } from "../../lib/auth/metadata-routes";
import { createResourceServer } from "../../lib/auth/resource-server";
import { loadEnv } from "../../lib/config/env";
import { worldcrafterResource } from "../../lib/worlds/resource";
import { WORLD_SCOPES } from "../../lib/worlds/scopes";
import { NOTES_PATH, createNotesEndpoint, createNotesResourceServer } from "../../examples/notes/endpoint";
import { NOTES_SCOPES } from "../../examples/notes/notes";

/**
 * A second endpoint on the core is a protected resource of its own (RFC 8707 §2, RFC 9728;
 * basic/authorization §token audience binding): its tokens' audience, its 401s'
 * resource_metadata and its metadata document name its URL, never WorldCrafter's /api/mcp
 * (outside review: the auth settings had /api/mcp built in, so a second endpoint accepted
 * WorldCrafter's tokens, refused its own and sent clients to WorldCrafter's metadata).
 */

const ISSUER = "https://issuer.example";
const SECRET = "second-resource-test-secret-0123456789abcdef";
const MCP_URL = "https://app.example/api/mcp";
const NOTES_URL = "https://app.example/api/notes";
const NOTES_METADATA = "https://app.example/.well-known/oauth-protected-resource/api/notes";

const deployment = {
  MCP_RESOURCE_URL: MCP_URL,
  MCP_AUTH_ISSUER: ISSUER,
  MCP_AUTH_HS256_SECRET: SECRET,
  MCP_AUTH_MODE: "required",
  MCP_LOG_REQUESTS: "0",
  MCP_RATE_LIMITS: "0",
};
const env = loadEnv(deployment);

function tokenFor(audience: string): Promise<string> {
  return new SignJWT({ scope: "notes:read notes:write" })
    .setProtectedHeader({ alg: "HS256", typ: "at+jwt" })
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setSubject("alice")
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(new TextEncoder().encode(SECRET));
}

async function toolsList(authorization: string): Promise<Response> {
  const endpoint = createNotesEndpoint(env, createNotesResourceServer(env));
  const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  return endpoint.handle(
    new Request(NOTES_URL, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list", authorization },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta } }),
    }),
  );
}

describe("a second endpoint's protected resource", () => {
  it("is its own URL: audience, resource_metadata and name; WorldCrafter's settings stay as they were", () => {
    const notes = resolveAuthSettings(env, NOTES_SCOPES, { path: NOTES_PATH, name: "Notes" });
    expect(notes).toMatchObject({ resourceUrl: NOTES_URL, audience: NOTES_URL, resourceMetadataUrl: NOTES_METADATA, resourceName: "Notes", resourceDocumentation: "https://app.example/" });
    const worldcrafter = resolveAuthSettings(env, WORLD_SCOPES, worldcrafterResource(env));
    expect(worldcrafter).toMatchObject({ resourceUrl: MCP_URL, audience: MCP_URL, resourceMetadataUrl: "https://app.example/.well-known/oauth-protected-resource/api/mcp", resourceName: "WorldCrafter" });
  });

  it("takes none of the primary endpoint's MCP_RESOURCE_* or MCP_AUTH_AUDIENCE, only the origin (or Vercel's host)", () => {
    const configured = loadEnv({ ...deployment, MCP_AUTH_AUDIENCE: "worldcrafter-api", MCP_RESOURCE_NAME: "WorldCrafter", MCP_RESOURCE_DOCUMENTATION: "https://docs.example/worldcrafter" });
    expect(resolveAuthSettings(configured, NOTES_SCOPES, { path: NOTES_PATH, name: "Notes" })).toMatchObject({ audience: NOTES_URL, resourceName: "Notes", resourceDocumentation: "https://app.example/" });
    expect(resolveAuthSettings(configured, WORLD_SCOPES, worldcrafterResource(configured)).audience).toBe("worldcrafter-api");
    const vercel = loadEnv({ ...deployment, MCP_RESOURCE_URL: "", VERCEL_PROJECT_PRODUCTION_URL: "Notes.Vercel.App" });
    expect(resolveAuthSettings(vercel, NOTES_SCOPES, { path: NOTES_PATH, name: "Notes" }).resourceUrl).toBe("https://notes.vercel.app/api/notes");
    expect(resolveAuthSettings(vercel, WORLD_SCOPES, worldcrafterResource(vercel)).resourceUrl).toBe("https://notes.vercel.app/api/mcp");
  });

  // Outside review: MCP_AUTH_IMPLICIT_SCOPES (WorldCrafter's worlds:*) was checked against every
  // endpoint's catalogue, so no value let two endpoints start. It is the primary endpoint's; another
  // names its own.
  it("takes MCP_AUTH_IMPLICIT_SCOPES for the primary endpoint only; another names its own implicit scopes", () => {
    const supabase = loadEnv({ ...deployment, MCP_AUTH_IMPLICIT_SCOPES: "worlds:read,worlds:write" });
    expect(resolveAuthSettings(supabase, WORLD_SCOPES, worldcrafterResource(supabase)).implicitScopes).toEqual(["worlds:read", "worlds:write"]);
    expect(resolveAuthSettings(supabase, NOTES_SCOPES, { path: NOTES_PATH, name: "Notes" }).implicitScopes).toEqual([]);
    expect(resolveAuthSettings(supabase, NOTES_SCOPES, { path: NOTES_PATH, name: "Notes", implicitScopes: ["notes:read"] }).implicitScopes).toEqual(["notes:read"]);
    expect(() => resolveAuthSettings(supabase, NOTES_SCOPES, { path: NOTES_PATH, name: "Notes", implicitScopes: ["worlds:read"] })).toThrow(/implicit scopes of \/api\/notes .*worlds:read/);
  });

  it("refuses a token issued for WorldCrafter's /api/mcp, pointing at its own metadata", async () => {
    const refused = await toolsList(`Bearer ${await tokenFor(MCP_URL)}`);
    expect(refused.status).toBe(401);
    const challenge = refused.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain(`resource_metadata="${NOTES_METADATA}"`);
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain("audience");
  });

  it("accepts a token issued for its own URL", async () => {
    const accepted = await toolsList(`Bearer ${await tokenFor(NOTES_URL)}`);
    expect(accepted.status).toBe(200);
    expect(((await accepted.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(3);
  });

  it("with no token, its challenge names its own metadata URL", async () => {
    const anonymous = await toolsList("");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toContain(`resource_metadata="${NOTES_METADATA}"`);
  });

  it("publishes its own metadata document: its resource, scopes and name", async () => {
    const route = protectedResourceMetadataRoute({ server: () => createNotesResourceServer(env), env: () => env });
    const response = await route.GET(new Request(NOTES_METADATA));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource: NOTES_URL,
      authorization_servers: [ISSUER],
      scopes_supported: ["notes:read", "notes:write"],
      bearer_methods_supported: ["header"],
      resource_name: "Notes",
      resource_documentation: "https://app.example/",
    });
  });

  it("says what it needs when there is no MCP_AUTH_ISSUER and the built-in server is not given", () => {
    const builtinEnv = loadEnv({ MCP_RESOURCE_URL: MCP_URL, MCP_LOG_REQUESTS: "0" });
    const settings = resolveAuthSettings(builtinEnv, NOTES_SCOPES, { path: NOTES_PATH, name: "Notes" });
    expect(() => createResourceServer(settings)).toThrow(AuthConfigError);
    expect(() => createResourceServer(settings)).toThrow(/MCP_AUTH_ISSUER is not set.*built-in authorization server.*createBuiltinAuthorizationServer.*or set MCP_AUTH_ISSUER/);
  });

  it("refuses a path that is not one", () => {
    expect(() => resolveAuthSettings(env, NOTES_SCOPES, { path: "api/notes", name: "Notes" })).toThrow(/must start with "\/"/);
  });
});

describe("the core", () => {
  it("names no WorldCrafter endpoint and imports nothing of lib/worlds", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(ts|mts|mjs)$/.test(name)) {
          // Code, not comments (which may mention /api/mcp as an example): the path of WorldCrafter's endpoint is lib/worlds/resource.ts's.
          const code = readFileSync(path, "utf8")
            .split("\n")
            .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
            .join("\n");
          if (/["'`]\/api\/mcp\b/.test(code) || /from "[./]*\/worlds\//.test(code)) offenders.push(path);
        }
      }
    };
    for (const dir of ["lib/mcp", "lib/jsonrpc", "lib/http", "lib/auth"]) walk(join(__dirname, "../..", dir));
    expect(offenders).toEqual([]);
  });
});
