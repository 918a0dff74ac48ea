import { afterEach, describe, expect, it, vi } from "vitest";
import type { ToolCallRecord } from "../../lib/mcp";
import { argumentsDigest, createAuditSink, type AuditRow } from "../../lib/worlds/audit/tool-call-audit";

const call = (n: number): ToolCallRecord =>
  ({ tool: `tool-${n}`, auth: undefined, arguments: { n }, durationMs: 1, outcome: "ok" }) as unknown as ToolCallRecord;

describe("audit sink", () => {
  afterEach(() => vi.restoreAllMocks());

  it("keeps the newest rows when the queue is full and reports the drops once, with their count", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const written: AuditRow[] = [];
    // A long window: nothing is written until the explicit flush.
    const sink = createAuditSink({ write: async (rows) => void written.push(...rows), maxQueued: 3, flushAfterMs: 60_000 });
    for (let n = 1; n <= 10; n++) sink.observe(call(n));
    await sink.flush();

    expect(written.map((r) => r.tool)).toEqual(["tool-8", "tool-9", "tool-10"]);
    const reports = stderr.mock.calls.map(([line]) => String(line)).filter((line) => line.includes("audit queue full"));
    // Seven rows were dropped, one per call: one line, not seven.
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain("dropped 1 oldest row(s)");
  });

  it("builds rows when the batch is written, not during the call; a record it cannot digest is left out alone", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const written: AuditRow[] = [];
    const sink = createAuditSink({ write: async (rows) => void written.push(...rows), flushAfterMs: 60_000 });
    const odd = { ...call(2), arguments: { n: 10n } } as unknown as ToolCallRecord;
    // Digesting a BigInt throws; the call that reported it must not see that.
    expect(() => sink.observe(odd)).not.toThrow();
    sink.observe(call(1));
    sink.observe(call(3));
    expect(written).toEqual([]);
    await sink.flush();

    expect(written.map((r) => r.tool)).toEqual(["tool-1", "tool-3"]);
    expect(written[0]?.argsDigest).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(stderr.mock.calls.map(([line]) => String(line)).some((line) => line.includes("the row of a tool-2 call"))).toBe(true);
  });

  it("leaves calls that end during a write to their own window, so a steady stream of calls is not one insert per call", async () => {
    const batches: string[][] = [];
    let release: () => void = () => undefined;
    const write = async (rows: AuditRow[]) => {
      batches.push(rows.map((r) => r.tool));
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
    };
    const sink = createAuditSink({ write, flushAfterMs: 60_000 });
    sink.observe(call(1));
    const first = sink.flush();
    await vi.waitFor(() => expect(batches).toHaveLength(1));
    // Two calls end while the first batch is still being written.
    sink.observe(call(2));
    sink.observe(call(3));
    release();
    await first;
    // Before, the drain wrote them at once, a second insert right behind the first.
    expect(batches).toEqual([["tool-1"]]);
    await sink.flush();
    expect(batches).toEqual([["tool-1"], ["tool-2", "tool-3"]]);
  });

  it("digests arguments as before: keys sorted, undefined members left out, nesting and escapes kept", () => {
    // Pinned from the previous implementation: rows written before and after a release must give
    // equal calls equal digests.
    expect(argumentsDigest({})).toBe("sha256:44136fa355b3678a1146ad16f7e8649e");
    expect(argumentsDigest({ style: "elvish", count: 3 })).toBe("sha256:73cd2ca0604670720417a54f415691e9");
    expect(argumentsDigest({ count: 3, style: "elvish", unused: undefined })).toBe("sha256:73cd2ca0604670720417a54f415691e9");
    expect(argumentsDigest({ b: 1, a: [1, "x", null, { z: true, y: undefined, x: [] }], c: { é: 1, Z: 2, "a b": '\u2028"' } })).toBe(
      "sha256:985758648a71f5fdc6505b9742713237",
    );
    expect(argumentsDigest({ nested: { deeper: { deepest: [[], [{}], [1.5e300, -0]] } }, skip: undefined })).toBe(
      "sha256:4c99a40028766862803ce802f594e1d5",
    );
  });
});
