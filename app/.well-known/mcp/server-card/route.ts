// The MCP Server Card (SEP-2127), also here for clients that look under /.well-known; the reserved location is /api/mcp/server-card.
import { routeMethods } from "@/lib/http/route-methods";
import { serverCardRoute } from "@/lib/worlds/discovery-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods(serverCardRoute);
