import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";

/** The README promises copy-paste curl examples that work as written; run them. */
describe("README curl examples", () => {
  it("run as written against the real server", () => {
    const readme = readFileSync(join(__dirname, "../../README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Try it with curl"));
    const block = /```bash\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toContain("initialize");
    const script = (block ?? "").replaceAll("http://localhost:3000", inject("statefulUrl"));
    const out = execFileSync("bash", ["-euo", "pipefail", "-c", script], { encoding: "utf8", timeout: 20_000 });

    expect(out).toMatch(/^session: [\x21-\x7e]{16,}$/m);
    const lines = out.split("\n");
    expect(lines[1]).toBe("202");
    expect(out).toContain('"name":"suggest_names"');
    expect(out).toMatch(/"structuredContent":\{"style":"elvish","kind":"place","names":\[/);
    expect(out.match(/notifications\/progress/g)?.length).toBe(10);
    expect(out).toContain('"id":4,"result"');
    expect(lines.at(-2)).toBe("200");
  });
});
