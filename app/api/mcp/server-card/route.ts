// The MCP Server Card (SEP-2127) at its reserved location, <streamable-http-url>/server-card.
import { serverCardRoute } from "@/lib/worlds/discovery-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = (request: Request) => serverCardRoute.GET(request);
export const OPTIONS = (request: Request) => serverCardRoute.OPTIONS(request);
