// The MCP Server Card (SEP-2127) at its reserved location, <streamable-http-url>/server-card.
import { routeMethods } from "@/lib/http/route-methods";
import { serverCardRoute } from "@/lib/worlds/discovery-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods(serverCardRoute);
