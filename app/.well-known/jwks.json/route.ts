// The built-in authorization server's public keys; with an external one, its own JWKS applies (404).
import { routeMethods } from "@/lib/http/route-methods";
import { jwksRoute } from "@/lib/worlds/metadata-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods(jwksRoute);
