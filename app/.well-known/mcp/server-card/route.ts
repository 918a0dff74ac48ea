// The MCP Server Card (SEP-2127): the endpoint, its revisions, sign-in and static primitives, before connecting.
import { loadEnv } from "@/lib/config/env";
import { resourceUrlForRequest } from "@/lib/auth/auth-settings";
import { metadataPreflight, metadataResponse } from "@/lib/http/metadata-response";
import { originPolicyOf } from "@/lib/http/origin-guard";
import { serverCard } from "@/lib/worlds/server-card";
import { worldcrafterResourceServer } from "@/lib/worlds/authorization";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(request: Request): Response {
  const env = loadEnv();
  const card = serverCard({
    resourceUrl: resourceUrlForRequest(env, request.headers),
    authRequired: worldcrafterResourceServer().access.mode === "required",
    disabledTools: env.MCP_DISABLED_TOOLS,
  });
  return metadataResponse(request, originPolicyOf(env), card, "server card");
}

export function OPTIONS(request: Request): Response {
  return metadataPreflight(request, originPolicyOf(loadEnv()));
}
