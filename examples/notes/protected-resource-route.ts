// examples/notes/protected-resource-route.ts: in an app, app/.well-known/oauth-protected-resource/api/notes/route.ts,
// the URL the endpoint's 401s name in resource_metadata (RFC 9728 §3.1: the well-known segment before the resource's path).
import { notesResourceServer } from "@/examples/notes/endpoint";
import { protectedResourceMetadataRoute } from "@/lib/auth/metadata-routes";
import { routeMethods } from "@/lib/http/route-methods";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods(protectedResourceMetadataRoute({ server: notesResourceServer }));
