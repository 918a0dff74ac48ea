// The development issuer's public key; with a real authorization server, its own JWKS applies (404).
import { jwksRoute } from "@/lib/worlds/metadata-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, OPTIONS } = jwksRoute;
