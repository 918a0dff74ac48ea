// OpenID Connect discovery of the configured authorization server, mirrored for clients that look here.
import { routeMethods } from "@/lib/http/route-methods";
import { openidConfigurationRoute } from "@/lib/worlds/metadata-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods(openidConfigurationRoute);
