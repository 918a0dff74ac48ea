import { getPrisma } from "../../db/prisma";
import type { WorldDocument } from "../import/world-document";
import { assertImportFits, assertRoomForWorld } from "./quotas";

/**
 * A whole world written for `owner` in one transaction: the world, its characters, its locations
 * with their parents — all of it, or (on any error) none of it. Rows get creation times a
 * millisecond apart in the file's order, so lists and a later export give them in that order.
 * Those times count back from the import, never forward: a row dated up to a second ahead was
 * listed above, and exported before, a record created just after the import (outside probe,
 * 2026-11-29), and its createdAt came out later than its updatedAt.
 */

/** Generous for a thousand rows on the embedded database; past it the transaction rolls back. */
const TRANSACTION_TIMEOUT_MS = 60_000;

/** The locations level by level (parents before their children), each with its index in the file. */
function levels(locations: WorldDocument["locations"]): number[][] {
  const depthOf = new Map<string, number>();
  const byKey = new Map(locations.map((l) => [l.key, l]));
  const depth = (key: string): number => {
    const known = depthOf.get(key);
    if (known !== undefined) return known;
    const parent = byKey.get(key)?.parentKey ?? null;
    // The document was checked for cycles and dangling parents (world-document.ts).
    const d = parent === null ? 0 : depth(parent) + 1;
    depthOf.set(key, d);
    return d;
  };
  const out: number[][] = [];
  locations.forEach((l, i) => (out[depth(l.key)] ??= []).push(i));
  return out.filter(Boolean);
}

export async function importWorld(owner: string, doc: WorldDocument, signal?: AbortSignal) {
  assertImportFits(doc.characters.length + doc.locations.length);
  await assertRoomForWorld(owner);
  const prisma = await getPrisma();
  const now = Date.now();
  // Row i of a kind is dated base + i: the last of the longer list one millisecond before the world.
  const base = now - Math.max(doc.characters.length, doc.locations.length);
  const at = (i: number) => new Date(base + i);
  return prisma.$transaction(
    async (tx) => {
      const world = await tx.world.create({ data: { ownerSubject: owner, ...doc.world, createdAt: new Date(now) } });
      if (doc.characters.length > 0) {
        await tx.character.createMany({
          data: doc.characters.map((c, i) => ({ ownerSubject: owner, worldId: world.id, ...c, createdAt: at(i) })),
        });
      }
      const idOf = new Map<string, string>();
      for (const level of levels(doc.locations)) {
        signal?.throwIfAborted();
        const rows = await tx.location.createManyAndReturn({
          data: level.map((i) => {
            const l = doc.locations[i] as WorldDocument["locations"][number];
            const parentId = l.parentKey === null ? null : (idOf.get(l.parentKey) as string);
            return { ownerSubject: owner, worldId: world.id, name: l.name, kind: l.kind, description: l.description, parentId, createdAt: at(i) };
          }),
          select: { id: true, createdAt: true },
        });
        // Each row's creation time is its index in the file: that names which location it is.
        for (const row of rows) idOf.set((doc.locations[row.createdAt.getTime() - base] as WorldDocument["locations"][number]).key, row.id);
      }
      signal?.throwIfAborted();
      return world;
    },
    { timeout: TRANSACTION_TIMEOUT_MS, maxWait: 10_000 },
  );
}
