import { describe, expect, it } from "vitest";
import { MemorySessionStore } from "../../lib/mcp/transport/session-store";
import { sessionRecord } from "../support/session-record";

/**
 * The in-process session store's bounds: per caller (its own oldest session goes) and in total.
 * A full process ends the oldest session of the caller holding the most: refusing every new
 * session let a couple of hundred callers at their bound shut every other client out (outside audit).
 */

const record = sessionRecord;

describe("the in-process session store", () => {
  it("a caller at its bound loses its own oldest session", async () => {
    const store = new MemorySessionStore(100, 2);
    const ended: string[] = [];
    for (const id of ["a1", "a2", "a3"]) ended.push(...(await store.create(record(id, "ip:a"))));
    // It says which, so their streams and calls end too (session/initialize.ts).
    expect(ended).toEqual(["a1"]);
    expect([store.get("a1"), store.get("a2"), store.get("a3")].map(Boolean)).toEqual([false, true, true]);
  });

  it("when full, a new client is admitted and the caller holding the most loses its oldest; small holders keep theirs", async () => {
    const store = new MemorySessionStore(6, 3);
    await store.create(record("user", "sub:alice"));
    for (const id of ["f1", "f2", "f3"]) await store.create(record(id, "ip:flood-1"));
    for (const id of ["g1", "g2"]) await store.create(record(id, "ip:flood-2"));
    // Full (6). A newcomer is not refused: flood-1 (3 sessions) gives up its oldest, and the store says so.
    await expect(store.create(record("bob", "sub:bob"))).resolves.toEqual(["f1"]);
    expect(store.get("bob")).toBeDefined();
    expect(store.get("f1")).toBeUndefined();
    // The floods keep pushing each other out, never alice's one session.
    for (let i = 0; i < 20; i++) await store.create(record(`h${i}`, i % 2 === 0 ? "ip:flood-1" : "ip:flood-2"));
    expect(store.get("user")).toBeDefined();
    expect(store.get("bob")).toBeDefined();
  });
});
