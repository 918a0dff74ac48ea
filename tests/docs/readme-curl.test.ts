import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";

/** The README promises copy-paste curl examples that work as written; run them. */
function curlBlocks(): string[] {
  const readme = readFileSync(join(__dirname, "../../README.md"), "utf8");
  const start = readme.indexOf("## Try it with curl");
  const section = readme.slice(start, readme.indexOf("\n## ", start + 5));
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

function runBlock(block: string): string {
  const server = inject("statefulUrl");
  const script = block.replaceAll("http://localhost:3000", server);
  // `npm run token` signs with the key the test server trusts, for that server's audience.
  const env = { ...process.env, MCP_AUTH_KEYS_DIR: inject("devIssuerDir"), MCP_RESOURCE_URL: `${server}/api/mcp` };
  return execFileSync("bash", ["-euo", "pipefail", "-c", script], { encoding: "utf8", timeout: 30_000, env });
}

describe("README curl examples", () => {
  it("the 2025 session walk-through runs as written against the real server", () => {
    const block = curlBlocks()[0] ?? "";
    expect(block).toContain("initialize");
    const out = runBlock(block);

    expect(out).toMatch(/^session: [\x21-\x7e]{16,}$/m);
    const lines = out.split("\n");
    expect(lines[1]).toBe("202");
    expect(out).toContain('"name":"suggest_names"');
    expect(out).toMatch(/"structuredContent":\{"style":"elvish","kind":"place","names":\[/);
    expect(out.match(/notifications\/progress/g)?.length).toBe(10);
    expect(out).toContain('"id":4,"result"');
    expect(lines.at(-2)).toBe("200");
  });

  it("the 2026-07-28 examples run as written: no session, results with resultType and serverInfo", () => {
    const block = curlBlocks()[1] ?? "";
    expect(block).toContain("2026-07-28");
    const lines = runBlock(block).trim().split("\n");
    expect(lines).toHaveLength(2);
    const discover = JSON.parse(lines[0] as string) as { result: Record<string, unknown> };
    expect(discover.result).toMatchObject({ resultType: "complete", supportedVersions: expect.arrayContaining(["2026-07-28", "2025-11-25"]) });
    expect(discover.result._meta).toMatchObject({ "io.modelcontextprotocol/serverInfo": { name: "worldcrafter" } });
    const call = JSON.parse(lines[1] as string) as { result: Record<string, unknown> };
    expect(call.result).toMatchObject({ resultType: "complete", structuredContent: { style: "dwarvish", names: expect.any(Array) } });
  });

  it("the token example runs as written: npm run token, then create_world and list_worlds as that subject", () => {
    const block = curlBlocks()[2] ?? "";
    expect(block).toContain("npm run -s token");
    const lines = runBlock(block).trim().split("\n");
    expect(lines).toHaveLength(2);
    const created = JSON.parse(lines[0] as string) as { result: { structuredContent: { world: { id: string; name: string } } } };
    expect(created.result.structuredContent.world.name).toBe("Eldergrove");
    const listed = JSON.parse(lines[1] as string) as { result: { structuredContent: { worlds: { id: string }[] } } };
    expect(listed.result.structuredContent.worlds.map((w) => w.id)).toContain(created.result.structuredContent.world.id);
  });
});
