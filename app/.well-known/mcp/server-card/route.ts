// The MCP Server Card (SEP-2127), also here for clients that look under /.well-known; the reserved location is /api/mcp/server-card.
import { serverCardRoute } from "@/lib/worlds/discovery-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = (request: Request) => serverCardRoute.GET(request);
export const OPTIONS = (request: Request) => serverCardRoute.OPTIONS(request);
