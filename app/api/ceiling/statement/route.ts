// get_world's measured floor: the bare route reading its body, then get_world's one statement
// (the world card, lib/worlds/data/worlds.ts) for the development subject, answered as JSON. The
// world is named by the X-Bench-World header, so the body is read and never parsed; no token, no
// MCP. Only with MCP_BENCH_ROUTES=1 (lib/bench/ceiling-routes.ts); otherwise 404, as is an unknown world.
import { DEV_SUBJECT } from "@/lib/authorization-server/key-file";
import { ceilingLoaded } from "@/lib/bench/ceiling-routes";
import { routeMethods } from "@/lib/http/route-methods";
import { NotFoundError } from "@/lib/worlds/data/errors";
import { getWorldCard } from "@/lib/worlds/data/worlds";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Which world to read: bench/config.mjs sends the seeded target's id in it. */
const WORLD_HEADER = "x-bench-world";

async function worldCard(request: Request): Promise<Awaited<ReturnType<typeof getWorldCard>> | undefined> {
  const id = request.headers.get(WORLD_HEADER);
  if (!id) return undefined;
  try {
    return await getWorldCard(DEV_SUBJECT, id);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods({ POST: ceilingLoaded(worldCard) });
