// RFC 9728 protected resource metadata (root form; clients try the path form first).
import { routeMethods } from "@/lib/http/route-methods";
import { protectedResourceRoute } from "@/lib/worlds/metadata-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods(protectedResourceRoute);
