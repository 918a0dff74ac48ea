// RFC 9728 §3.1: the metadata of the resource /api/mcp, at the path-inserted well-known URL.
import { routeMethods } from "@/lib/http/route-methods";
import { protectedResourceRoute } from "@/lib/worlds/metadata-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods(protectedResourceRoute);
