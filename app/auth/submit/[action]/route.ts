// The sign-in, sign-up, consent and sign-out forms post here; each answer is a 303.
import { routeMethods } from "@/lib/http/route-methods";
import { authFormRoute } from "@/lib/worlds/auth-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

async function submit(request: Request, { params }: { params: Promise<{ action: string }> }): Promise<Response> {
  return authFormRoute(request, (await params).action);
}

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods({ POST: submit });
