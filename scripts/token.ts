/**
 * npm run token -- [--sub alice] [--scope "worlds:read worlds:write"] [--ttl 3600] [--client id]
 *
 * Prints an access token from the built-in authorization server's keys, for curl and scripts:
 *   curl -H "Authorization: Bearer $(npm run -s token -- --sub alice)" …
 * The token names this server as its audience (MCP_RESOURCE_URL, default
 * http://localhost:3000/api/mcp) and is signed with the key the server signs its own tokens with
 * (the keys folder, MCP_AUTH_KEYS_DIR, default .data/auth-keys). Signing in through MCP Inspector
 * or a chat client gives the same kind of token. With an external authorization server
 * configured, tokens come from it and this script refuses; so it does when the keys live in the
 * database (production), where only the sign-in flow issues tokens.
 */
import { parseArgs } from "node:util";
import { loadEnv } from "../lib/config/env";
import { resolveAuthSettings } from "../lib/auth/auth-settings";
import { DEV_SUBJECT, signAccessToken } from "../lib/authorization-server/key-file";
import { resolveAuthServerSettings } from "../lib/authorization-server/settings";
import { worldcrafterResource } from "../lib/worlds/resource";
import { WORLD_SCOPES } from "../lib/worlds/scopes";

const USAGE = `npm run token -- [--sub alice] [--scope "worlds:read worlds:write"] [--ttl 3600] [--client id]
Prints an access token for this server, signed with the built-in authorization server's keys.`;

function readArgs() {
  try {
    return parseArgs({
      options: {
        sub: { type: "string", default: DEV_SUBJECT },
        scope: { type: "string" },
        ttl: { type: "string", default: "3600" },
        client: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(2);
  }
}

const { values } = readArgs();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

async function main(): Promise<void> {
  // The server's own rules decide issuer and audience; NODE_ENV of this script is irrelevant.
  const env = loadEnv({ ...process.env, NODE_ENV: "development" });
  const settings = resolveAuthSettings(env, WORLD_SCOPES, worldcrafterResource(env));
  if (settings.issuer.kind !== "builtin") {
    throw new Error(`MCP_AUTH_ISSUER is set (${settings.issuer.issuer}): get tokens from that authorization server, not from npm run token.`);
  }
  const keysDir = resolveAuthServerSettings(env, settings).keysDir;
  if (!keysDir) throw new Error("MCP_AUTH_KEYS_DIR is not set: the signing keys are in the database, and tokens come from signing in (README: Connecting).");
  const known = WORLD_SCOPES.map((s) => s.name);
  const scopes = values.scope === undefined ? known : values.scope.split(/[\s,]+/).filter(Boolean);
  const unknown = scopes.filter((s) => !known.includes(s));
  if (unknown.length > 0) throw new Error(`unknown scope(s) ${unknown.join(", ")}; this server knows ${known.join(", ")}`);
  const ttlSeconds = Number(values.ttl);
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 60 || ttlSeconds > 30 * 24 * 3600) throw new Error("--ttl must be whole seconds between 60 and 2592000");
  const token = await signAccessToken(keysDir, {
    issuer: settings.issuer.issuer,
    audience: settings.audience,
    subject: values.sub,
    scopes,
    ttlSeconds,
    ...(values.client ? { clientId: values.client } : {}),
  });
  process.stdout.write(`${token}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
