// RFC 9728 §3.1: the metadata of the resource /api/mcp, at the path-inserted well-known URL.
import { protectedResourceRoute } from "@/lib/worlds/metadata-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, OPTIONS } = protectedResourceRoute;
