// The site's AI Catalog: where a client finds this domain's MCP server card.
import { aiCatalogRoute } from "@/lib/worlds/discovery-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = (request: Request) => aiCatalogRoute.GET(request);
export const OPTIONS = (request: Request) => aiCatalogRoute.OPTIONS(request);
