// The built-in OAuth 2.1 authorization server's endpoints (better-auth): authorize, token,
// register, revoke, consent, sign-in… See lib/authorization-server.
import { routeMethods } from "@/lib/http/route-methods";
import { authApiRoute } from "@/lib/worlds/auth-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods(authApiRoute);
