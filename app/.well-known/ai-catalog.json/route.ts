// The site's AI Catalog: where a client finds this domain's MCP server card.
import { routeMethods } from "@/lib/http/route-methods";
import { aiCatalogRoute } from "@/lib/worlds/discovery-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods(aiCatalogRoute);
