// OpenID Connect discovery of the configured authorization server, mirrored for clients that look here.
import { openidConfigurationRoute } from "@/lib/worlds/metadata-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, OPTIONS } = openidConfigurationRoute;
