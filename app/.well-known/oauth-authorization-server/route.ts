// RFC 8414 metadata of the configured authorization server, mirrored for clients that look here.
import { authorizationServerRoute } from "@/lib/worlds/metadata-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, OPTIONS } = authorizationServerRoute;
