import { describe, expect, it } from "vitest";
import { loadEnv } from "../../lib/config/env";
import { resolveAuthSettings, signInUnavailable } from "../../lib/auth/auth-settings";
import { worldcrafterResource } from "../../lib/worlds/resource";
import { WORLD_SCOPES } from "../../lib/worlds/scopes";

/**
 * The built-in authorization server's issuer is the origin of MCP_RESOURCE_URL. OAuth 2.1 wants
 * an https issuer (loopback aside); better-auth quietly publishes the https form of an http one,
 * which is not the issuer the protected resource metadata names, so clients refused the metadata
 * (RFC 8414 §3.3) with nothing to say why. The deployment now says why, as it does for a missing
 * secret: sign-in is unavailable, naming the variable.
 */
const settingsFor = (resourceUrl: string, extra: Record<string, string> = {}) => {
  const env = loadEnv({ NODE_ENV: "production", BETTER_AUTH_SECRET: "unit-test-better-auth-secret-0123456789abcdef", MCP_RESOURCE_URL: resourceUrl, ...extra });
  return resolveAuthSettings(env, WORLD_SCOPES, worldcrafterResource(env));
};

describe("the built-in issuer's scheme", () => {
  it.each(["https://worlds.example.com/api/mcp", "http://localhost:3000/api/mcp", "http://127.0.0.1:3000/api/mcp", "http://[::1]:3000/api/mcp"])("%s: sign-in is available", (url) => {
    expect(signInUnavailable(settingsFor(url))).toBeUndefined();
  });

  it("http on another host: sign-in is unavailable, naming MCP_RESOURCE_URL and the origin", () => {
    const settings = settingsFor("http://worlds.example.com:8080/api/mcp");
    expect(signInUnavailable(settings)).toMatch(/MCP_RESOURCE_URL is http on a host other than this machine \(http:\/\/worlds\.example\.com:8080\).*must be https/);
    // Open tools keep serving meanwhile, as with any missing piece.
    expect(settings.mode).toBe("mixed");
  });

  it("an external issuer is its own business: no problem is reported for an http resource there", () => {
    expect(signInUnavailable(settingsFor("http://worlds.example.com/api/mcp", { MCP_AUTH_ISSUER: "https://issuer.example.com" }))).toBeUndefined();
  });
});
