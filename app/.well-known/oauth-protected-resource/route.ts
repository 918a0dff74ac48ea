// RFC 9728 protected resource metadata (root form; clients try the path form first).
import { protectedResourceRoute } from "@/lib/worlds/metadata-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, OPTIONS } = protectedResourceRoute;
