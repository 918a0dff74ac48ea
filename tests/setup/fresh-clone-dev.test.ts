import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JSON_AND_SSE, LATEST, sseMessages } from "../support/mcp-http";
import { freePort, ROOT } from "../support/next-server.mjs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { authorizeInBrowser, launchChromium, MemoryOAuthProvider } from "../support/oauth-client";

/**
 * A fresh clone's `npm run dev` creates and migrates the embedded database unaided: clone the
 * committed HEAD, install as the README says, run `npm run dev`, and save and read back a world
 * over real MCP HTTP. It clones rather than using this checkout because the working tree already
 * has a generated client, a build and maybe a `.data` folder, which would hide anything the
 * quick start silently depends on (an ignored file, an uncommitted migration, a manual step).
 * Then an MCP client links an account against it as MCP Inspector would: the SDK's OAuth support
 * and a real Chromium on the built-in authorization server, with nothing configured.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The environment a new user has: none of this run's database, build-folder, npm or vitest settings. */
function newUserEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: "true", NEXT_TELEMETRY_DISABLED: "1" };
  for (const key of Object.keys(env)) {
    const strip =
      /^(DATABASE_URL|PGLITE_DATA_DIR|NEXT_DIST_DIR|NODE_ENV|NODE_OPTIONS|INIT_CWD)$/.test(key) ||
      // `npm test` leaks its script's npm_* (npm_config_* is the user's own npm setup, e.g. a
      // registry, so it stays); VITEST* and __NEXT* come from the runner; MCP_* would change the defaults.
      (/^npm_/i.test(key) && !/^npm_config_/i.test(key)) ||
      /^(VITEST|__VITEST|__NEXT|MCP_)/.test(key);
    if (strip) delete env[key];
  }
  return env;
}

/** Everything a child printed, stdout and stderr interleaved as they arrived. */
function capture(child: ChildProcess): () => string {
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  return () => out;
}

const tail = (text: string, n = 6_000) => (text.length > n ? `…${text.slice(-n)}` : text);

/** Runs a command to completion; rejects with its output when it fails or overruns. */
async function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<string> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  const output = capture(child);
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  }).finally(() => clearTimeout(timer));
  if (code !== 0) throw new Error(`\`${command} ${args.join(" ")}\` exited with ${code}:\n${tail(output())}`);
  return output();
}

/** True while any process of the group is alive (signal 0 only checks). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM the whole group (npm, next dev and its workers), SIGKILL whatever is left after 10 s. */
async function killGroup(child: ChildProcess): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined || !groupAlive(pgid)) return;
  process.kill(-pgid, "SIGTERM");
  const deadline = Date.now() + 10_000;
  while (groupAlive(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    /* already gone */
  }
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** One JSON-RPC POST; the answer may be plain JSON or an SSE stream, so the message with `id` is picked out. */
async function rpc(url: string, body: Json, headers: Record<string, string>, timeoutMs: number): Promise<{ res: Response; message: Json | undefined }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: JSON_AND_SSE, ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  if (!("id" in body)) return { res, message: undefined };
  const candidates: unknown[] = (res.headers.get("content-type") ?? "").includes("text/event-stream")
    ? sseMessages(text)
    : [text ? (JSON.parse(text) as unknown) : undefined];
  const message = candidates.find((m): m is Json => isObject(m) && m.id === body.id);
  if (!message) throw new Error(`${String(body.method)}: no answer with id ${String(body.id)} (HTTP ${res.status}): ${text.slice(0, 1_000)}`);
  return { res, message };
}

/** The `result` of a successful tools/call, or an error naming what came back instead. */
function toolResult(message: Json | undefined, tool: string): Json {
  const result = message?.result;
  if (!isObject(result) || result.isError === true) throw new Error(`${tool} failed: ${JSON.stringify(message).slice(0, 1_000)}`);
  return result;
}

function worldOf(result: Json): Json {
  const world = isObject(result.structuredContent) ? result.structuredContent.world : undefined;
  if (!isObject(world)) throw new Error(`no structuredContent.world in ${JSON.stringify(result).slice(0, 1_000)}`);
  return world;
}

describe("fresh clone", () => {
  let workDir: string | undefined;
  let dev: ChildProcess | undefined;

  // Also runs when the test fails or times out, so neither the server nor the folder outlives the run.
  afterAll(async () => {
    if (dev) await killGroup(dev);
    if (workDir) rmSync(workDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 });
  }, 30_000);

  it("npm run dev creates and migrates the embedded database unaided", async () => {
    workDir = mkdtempSync(join(tmpdir(), "wc-fresh-clone-"));
    const clone = join(workDir, "worldcrafter");
    const env = newUserEnv();
    await run("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone], { cwd: workDir, env, timeoutMs: 60_000 });
    // Nothing git-ignored came along: the database and the Prisma client must be made by dev itself.
    expect(existsSync(join(clone, ".data"))).toBe(false);
    expect(existsSync(join(clone, "lib/db/generated"))).toBe(false);
    // The clone's migrations, not this working tree's: only committed ones reach a new user.
    const migrations = readdirSync(join(clone, "prisma/migrations"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(migrations.length).toBeGreaterThan(0);

    // --prefer-offline: served from the npm cache where it can, the registry otherwise.
    await run("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: clone, env, timeoutMs: 150_000 });

    const port = await freePort();
    // PORT as a user would set it: the server's resource URL (the tokens' audience) names it too.
    const portEnv = { ...env, PORT: String(port) };
    // detached: its own process group, so npm, next dev and next's workers are all killed together.
    dev = spawn("npm", ["run", "dev", "--", "-p", String(port), "-H", "127.0.0.1"], {
      cwd: clone,
      env: portEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = capture(dev);
    const server = dev;
    const url = `http://127.0.0.1:${port}/api/mcp`;

    // predev (generate + migrate) runs before next dev listens, and the first request compiles the
    // route, so poll until /api/mcp itself answers rather than until the port opens.
    const deadline = Date.now() + 180_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`npm run dev exited with ${server.exitCode}:\n${tail(output())}`);
      try {
        const res = await fetch(url, { method: "OPTIONS", signal: AbortSignal.timeout(60_000) });
        if (res.status < 500) break;
      } catch {
        /* not listening yet, or still compiling */
      }
      if (Date.now() > deadline) throw new Error(`npm run dev did not answer on ${url} within 180 s:\n${tail(output())}`);
      await new Promise((r) => setTimeout(r, 500));
    }

    // predev applied every committed migration to the embedded database, which now exists.
    const applied = output().split("Applied:")[1];
    expect(applied, `no "Applied:" in the dev output:\n${tail(output())}`).toBeDefined();
    for (const name of migrations) expect(applied).toContain(name);
    const dataDir = join(clone, ".data/pglite");
    expect(existsSync(dataDir)).toBe(true);
    expect(readdirSync(dataDir).length).toBeGreaterThan(0);

    // The README's way to a token for the development issuer, as a newcomer runs it.
    const printed = await run("npm", ["run", "-s", "token", "--", "--sub", "newcomer"], { cwd: clone, env: portEnv, timeoutMs: 60_000 });
    // (run() interleaves stderr, where npm may warn; the token is the one JWT printed.)
    const token = /eyJ[\w-]+\.[\w-]+\.[\w-]+/.exec(printed)?.[0] ?? "";
    expect(token, printed).not.toBe("");
    const bearer = { authorization: `Bearer ${token}` };

    // A world written and read back over MCP proves the server opened that database with its tables.
    const init = await rpc(
      url,
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "fresh-clone-test", version: "1" } } },
      bearer,
      120_000,
    );
    expect(init.res.status).toBe(200);
    const sessionId = init.res.headers.get("mcp-session-id");
    expect(sessionId).toBeTruthy();
    const session = { ...bearer, "mcp-session-id": sessionId ?? "", "mcp-protocol-version": LATEST };
    const initialized = await rpc(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session, 60_000);
    expect(initialized.res.status).toBe(202);

    const name = `Freshclone ${Date.now()}`;
    const created = await rpc(url, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "create_world", arguments: { name, theme: "fantasy" } } }, session, 120_000);
    const world = worldOf(toolResult(created.message, "create_world"));
    expect(typeof world.id).toBe("string");

    const read = await rpc(url, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_world", arguments: { worldId: world.id } } }, session, 120_000);
    expect(worldOf(toolResult(read.message, "get_world"))).toMatchObject({ id: world.id, name, theme: "fantasy" });

    // The widgets are rebuilt while dev runs: an edit to a widget's style gives the world card a
    // new HTML, hence a new ui://widget/world-card-<hash>.html, in the next tools/list. (Asked in
    // 2026-07-28 form: next dev reloads the route with the new widgets, and in-process sessions go
    // with the old module — a 2025 client would get 404 and initialize again, as the spec says.)
    const modern = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" };
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    const widgetUri = async (id: number) => {
      const listed = await rpc(url, { jsonrpc: "2.0", id, method: "tools/list", params: { _meta: meta } }, modern, 120_000);
      const tools = (listed.message?.result as { tools: Json[] }).tools;
      const ui = tools.find((t) => t.name === "get_world")?._meta as { ui?: { resourceUri?: string } } | undefined;
      return ui?.ui?.resourceUri;
    };
    const before = await widgetUri(4);
    expect(before).toMatch(/^ui:\/\/widget\/world-card-[0-9a-f]{12}\.html$/);
    appendFileSync(join(clone, "widgets/ui/base.css"), "\n.fresh-clone-edit { outline: 1px dotted red; }\n");
    let after = before;
    for (let i = 0; i < 60 && after === before; i++) {
      await new Promise((r) => setTimeout(r, 1_000));
      after = await widgetUri(5 + i);
    }
    expect(after, `the widget was not rebuilt:\n${tail(output())}`).not.toBe(before);
    expect(after).toMatch(/^ui:\/\/widget\/world-card-[0-9a-f]{12}\.html$/);

    // Account linking with no set-up: on the dev server's own origin (http://localhost:PORT, its
    // default resource URL), register, sign up in Chromium, consent, and create a world.
    const linked = new URL(`http://localhost:${port}/api/mcp`);
    const redirect = "http://127.0.0.1:1/callback";
    const provider = new MemoryOAuthProvider(redirect, "Fresh clone Inspector stand-in");
    const connect = async () => {
      const client = new Client({ name: "fresh-clone-oauth", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(linked, { authProvider: provider }));
      return client;
    };
    // Under mixed mode connecting works anonymously; the data tool's sign-in result starts linking.
    const anonymous = await connect();
    const refused = await anonymous.callTool({ name: "list_worlds", arguments: {} });
    expect(refused.isError).toBe(true);
    await anonymous.close();
    expect(await auth(provider, { serverUrl: linked })).toBe("REDIRECT");
    const browser = await launchChromium();
    try {
      const landed = await authorizeInBrowser(browser, provider.authorizationUrl!, redirect, { email: "newcomer@example.com", password: "correct horse battery" }, { signUp: true });
      const code = landed.searchParams.get("code");
      expect(code, landed.toString()).toBeTruthy();
      expect(await auth(provider, { serverUrl: linked, authorizationCode: code! })).toBe("AUTHORIZED");
    } finally {
      await browser.close();
    }
    const signedIn = await connect();
    const made = await signedIn.callTool({ name: "create_world", arguments: { name: "Linked in dev", theme: "fantasy" } });
    expect(made.isError, JSON.stringify(made)).toBeFalsy();
    await signedIn.close();
  }, 540_000);
});
