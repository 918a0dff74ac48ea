// The sign-in, sign-up, consent and sign-out forms post here; each answer is a 303.
import { authFormRoute } from "@/lib/worlds/auth-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ action: string }> }): Promise<Response> {
  return authFormRoute(request, (await params).action);
}
