/**
 * The widgets in a real headless Chromium (Debian's `chromium`, driven by playwright-core), inside
 * the two emulated hosts of widgets/hosts — one plays ChatGPT (`window.openai` and its
 * set_globals events), the other an MCP Apps host (ext-apps' AppBridge over postMessage) — on the
 * real server: the widget HTML comes from resources/read, the tool results from tools/call, and
 * every call a widget makes goes through its host to the server with the official SDK client.
 *
 * For each widget and host: the widget shows the tool output; a button calls a tool through the
 * host and the result appears (and is in the database); what the widget saved survives the host
 * rendering it again; hostile world names are shown as text. Then the host APIs of issue 24, in
 * both hosts: Export opens the export's first file link through the host (and, once the server
 * returns file references, that link serves the file); Import hands import_world the uploaded
 * file (ChatGPT) or the document inline (MCP Apps); Expand, pip and Collapse; editing in the
 * host's modal or a dialog; delete, after which the widget asks to close; locale switches; a
 * 390 px phone with safe-area insets; and the MCP Apps partial-input, cancel, teardown and font
 * events. Screenshots of each view, desktop and phone, go to .ci-results/screenshots (CI keeps
 * .ci-results).
 */
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chromium, type Browser, type BrowserContext, type Frame, type FrameLocator, type Page } from "playwright-core";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ROOT } from "../support/next-server.mjs";
import { connectClient } from "../support/sdk-client";
import { newSubject, tokenFor } from "../support/auth";

type Json = Record<string, unknown>;
type HostKind = "chatgpt" | "mcp-apps";
const HOSTS: HostKind[] = ["chatgpt", "mcp-apps"];
const HOSTILE = "<img src=x onerror=alert(1)>";
const SCREENSHOTS = join(ROOT, ".ci-results", "screenshots");

/** Debian's chromium, or CHROMIUM_PATH. */
function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`No Chromium at ${candidates.join(", ")}: apt-get install chromium (the CI script does), or set CHROMIUM_PATH`);
  return found;
}

const server = () => inject("statefulUrl");
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

interface Fixture {
  client: Client;
  /** The server's tool descriptors (tools/list), for their input schemas. */
  tools: Json[];
  call(name: string, args: Json): Promise<Json>;
  widgetHtml(tool: string): Promise<string>;
}

/** A signed-in SDK client of its own subject (closed when the test ends); anonymous with `anonymous`. */
async function fixture(anonymous = false): Promise<Fixture> {
  const token = anonymous ? undefined : await tokenFor(server(), newSubject("widgets"));
  // The emulated hosts render widgets: the client declares MCP Apps, so results carry the widget-only _meta.
  const { client } = await connectClient(`${server()}/api/mcp`, { ...(token ? { token } : {}), capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } });
  const tools = (await client.listTools()).tools;
  const call = async (name: string, args: Json) => (await client.callTool({ name, arguments: args })) as Json;
  return {
    client,
    tools: tools as unknown as Json[],
    call,
    async widgetHtml(tool) {
      const descriptor = tools.find((t) => t.name === tool);
      const uri = (descriptor?._meta?.ui as Json | undefined)?.resourceUri;
      if (typeof uri !== "string") throw new Error(`${tool} has no widget`);
      const read = await client.readResource({ uri });
      const content = read.contents[0] as Json | undefined;
      expect(content?.mimeType).toBe("text/html;profile=mcp-app");
      return String(content?.text);
    },
  };
}

interface Mounted {
  page: Page;
  frame: FrameLocator;
  /** The widget's document, for checks a locator cannot make. */
  document(): Frame;
  reload(): Promise<void>;
  /** What the widget asked of its host (openExternal, requestClose, requestModal, callTool…). */
  events(): Promise<{ name: string; detail: unknown }[]>;
  /** Runs one of the emulated host's controls (setLocale, deliverResult, cancel, teardown). */
  control(method: "setLocale" | "deliverResult" | "cancel" | "teardown", arg?: string): Promise<unknown>;
  /** The host hands the same widget another call's input and result. */
  showResult(toolInput: Json, toolResult: Json): Promise<void>;
  /** The widget's tool calls through the host, each with the server's result. */
  calls: { name: string; args: Json; result: Json }[];
  dialogs: string[];
  /** Uncaught errors and unhandled rejections in the page or the widget. */
  errors: string[];
  screenshot(name: string): Promise<void>;
}

interface MountOptions {
  html: string;
  toolName: string;
  toolInput: Json;
  toolResult: Json;
  locale?: string;
  timeZone?: string;
  fonts?: string;
  availableDisplayModes?: string[];
  holdResult?: { partialInput: Json };
  safeArea?: { top: number; right: number; bottom: number; left: number };
  /** Page width (default 720, a chat column); 390 is a phone. */
  width?: number;
  /** Where an upload (ChatGPT uploadFile) is stored; the test answers its download URL. */
  upload?: (file: { name: string; type: string; text: string }) => Promise<{ fileId: string; downloadUrl: string }>;
  /** The frame's sandbox (the emulators' default grants no allow-forms). */
  sandbox?: string;
  /** Requests the host refuses. */
  refuse?: ("message" | "displayMode" | "openLink")[];
  /** A browser context to open the page in: pages of one context share the widgets' localStorage. */
  context?: BrowserContext;
  /** Tool calls the host refuses (the widget's callTool rejects), as a host may. */
  refuseTools?: string[];
}

/** Opens the emulators' page on the server's origin and mounts one widget in one host. */
async function mount(host: HostKind, f: Fixture, options: MountOptions): Promise<Mounted> {
  const { width = 720, upload, context, refuseTools = [], ...hostOptions } = options;
  const page = context ? await context.newPage() : await browser.newPage({ viewport: { width, height: 900 } });
  if (context) await page.setViewportSize({ width, height: 900 });
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const calls: Mounted["calls"] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.exposeFunction("__callTool", async (name: string, args: Json) => {
    // Recorded before the answer: a call the server refuses outright is still a call made.
    const call = { name, args, result: {} as Json };
    calls.push(call);
    if (refuseTools.includes(name)) {
      call.result = { isError: true, error: "refused by the host" };
      throw new Error(`The host refused ${name}`);
    }
    try {
      call.result = await f.call(name, args);
    } catch (error) {
      call.result = { isError: true, error: String(error) };
      throw error;
    }
    return call.result;
  });
  await page.exposeFunction("__uploadFile", (file: { name: string; type: string; text: string }) => (upload ? upload(file) : Promise.reject(new Error("no upload store in this test"))));
  await page.goto(`${server()}/preview?bare`);
  await page.evaluate(
    async ({ host, options, withUpload }) => {
      const w = window as unknown as {
        WorldCrafterHosts: Record<string, (c: HTMLElement, o: unknown) => unknown>;
        __callTool: (n: string, a: unknown) => Promise<unknown>;
        __uploadFile: (file: unknown) => Promise<unknown>;
        __host: unknown;
      };
      const container = document.createElement("div");
      container.id = "host";
      document.body.replaceChildren(container);
      const mountHost = host === "chatgpt" ? w.WorldCrafterHosts.mountChatGptHost : w.WorldCrafterHosts.mountMcpAppsHost;
      w.__host = await mountHost!(container, { ...options, callTool: (n: string, a: unknown) => w.__callTool(n, a), ...(withUpload ? { uploadFile: (file: unknown) => w.__uploadFile(file) } : {}) });
    },
    { host, options: hostOptions, withUpload: upload !== undefined },
  );
  const frame = page.frameLocator("#host iframe");
  const hostCall = (method: string, arg?: string) =>
    page.evaluate(({ method, arg }) => (window as unknown as { __host: Record<string, (a?: string) => unknown> }).__host[method]!(arg), { method, arg });
  return {
    page,
    frame,
    document: () => {
      const child = page.frames().find((fr) => fr !== page.mainFrame());
      if (!child) throw new Error("no widget frame");
      return child;
    },
    reload: async () => {
      await hostCall("reload");
    },
    events: () => page.evaluate(() => [...(window as unknown as { __host: { events: { name: string; detail: unknown }[] } }).__host.events]),
    control: (method, arg) => hostCall(method, arg),
    showResult: (toolInput, toolResult) =>
      page.evaluate(({ toolInput, toolResult }) => (window as unknown as { __host: { showResult(i: unknown, r: unknown): Promise<void> } }).__host.showResult(toolInput, toolResult), { toolInput, toolResult }),
    calls,
    dialogs,
    errors,
    screenshot: async (name) => {
      const shot = { path: join(SCREENSHOTS, `${name}-${host}${width <= 400 ? "-phone" : ""}.png`) };
      // A fullscreen or pip frame covers the page: the page is the picture then.
      if (((await page.locator("#host iframe").getAttribute("data-display-mode")) ?? "inline") !== "inline") await page.screenshot(shot);
      else await page.locator("#host iframe").screenshot(shot);
    },
  };
}

const worldOf = (result: Json) => (result.structuredContent as { world: { id: string; name: string } }).world;
const characterOf = (result: Json) => (result.structuredContent as { character: { id: string; name: string } }).character;

describe.each(HOSTS)("widgets in the %s host", (host) => {
  it("world card: shows the world, adds a character through the host, keeps its state across a re-render", async () => {
    const f = await fixture();
    const created = await f.call("create_world", { name: "Glasswater", theme: "fantasy", tone: "hopeful", description: "Lakes that remember." });
    const worldId = worldOf(created).id;
    await f.call("create_character", { worldId, name: "Orrin", role: "ferryman" });
    const shown = await f.call("get_world", { worldId });
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown });

    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Glasswater");
    await expect.poll(() => m.frame.getByTestId("characters").textContent()).toContain("Orrin");
    expect(await m.frame.getByTestId("counts").textContent()).toContain("1 character ·");

    // A button calls create_character through the host; the new character appears, and is saved.
    await m.frame.locator("#new-name").fill("Mira");
    await m.frame.locator("#new-role").fill("scout");
    await m.frame.getByRole("button", { name: "Add character" }).click();
    await expect.poll(() => m.frame.getByTestId("status").textContent(), { timeout: 10_000 }).toContain("Mira joined Glasswater");
    expect(await m.frame.getByTestId("characters").textContent()).toContain("Mira");
    const after = await f.call("get_world", { worldId });
    expect((after.structuredContent as { world: { counts: { characters: number } } }).world.counts.characters).toBe(2);

    // A half-typed name and the added character are widget state: the host renders again, both are back.
    await m.frame.locator("#new-name").fill("Half-typed");
    await expect.poll(() => m.frame.locator("#new-name").inputValue()).toBe("Half-typed");
    await m.screenshot("world-card");
    await m.reload();
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Glasswater");
    await expect.poll(() => m.frame.locator("#new-name").inputValue()).toBe("Half-typed");
    expect(await m.frame.getByTestId("characters").textContent()).toContain("Mira");
    await m.page.close();
  });

  it("character card: shows traits and relations, opens a relation through the host, and stays on it after a re-render", async () => {
    const f = await fixture();
    const worldId = worldOf(await f.call("create_world", { name: "Thornwick", theme: "gothic" })).id;
    const ada = characterOf(await f.call("create_character", { worldId, name: "Ada Thorn", role: "heir", traits: ["stubborn", "kind"], backstory: "Raised by crows." }));
    const bram = characterOf(await f.call("create_character", { worldId, name: "Bram Weald", role: "gamekeeper", traits: ["quiet"] }));
    const shown = await f.call("get_character", { characterId: ada.id });
    const m = await mount(host, f, { html: await f.widgetHtml("get_character"), toolName: "get_character", toolInput: { characterId: ada.id }, toolResult: shown });

    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Ada Thorn");
    expect(await m.frame.getByRole("list", { name: "Traits" }).textContent()).toContain("stubborn");
    expect(await m.frame.getByTestId("relations").textContent()).toContain("Bram Weald");
    await m.screenshot("character-card");

    await m.frame.getByRole("button", { name: "Open Bram Weald" }).click();
    await expect.poll(() => m.frame.locator("h1").textContent(), { timeout: 10_000 }).toBe("Bram Weald");
    expect(await m.frame.getByTestId("relations").textContent()).toContain("Ada Thorn");
    // The state names the relation opened, and no more: ChatGPT shows widget state to the model,
    // and the result's _meta (backstory, relations) is the widget's alone (outside probe, 2026-11-29).
    const kept = await m.document().evaluate(() => {
      const openai = (window as unknown as { openai?: { widgetState?: unknown } }).openai;
      if (openai) return JSON.stringify(openai.widgetState ?? null);
      return Object.entries(localStorage).find(([k]) => k.startsWith("worldcrafter:widget-state:character-card"))?.[1] ?? "null";
    });
    expect(JSON.parse(kept)).toEqual({ openedId: bram.id });

    // A new frame reads the opened relation again: its relations too, not only its name.
    const callsBefore = m.calls.length;
    await m.reload();
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe(bram.name);
    await expect.poll(() => m.frame.getByTestId("relations").textContent()).toContain("Ada Thorn");
    expect(m.calls.slice(callsBefore).map((c) => c.name)).toEqual(["get_character"]);
    await m.page.close();
  });

  it("world list: pages with Show more through the host, opens a world, and keeps both after a re-render", async () => {
    const f = await fixture();
    for (const name of ["Amberlight", "Bellmoor", "Cinderreach"]) await f.call("create_world", { name, theme: "fantasy" });
    const shown = await f.call("list_worlds", { limit: 2 });
    const m = await mount(host, f, { html: await f.widgetHtml("list_worlds"), toolName: "list_worlds", toolInput: { limit: 2 }, toolResult: shown });

    await expect.poll(() => m.frame.getByTestId("worlds").locator("li").count()).toBe(2);
    await m.frame.getByRole("button", { name: "Show more" }).click();
    await expect.poll(() => m.frame.getByTestId("worlds").locator("li").count(), { timeout: 10_000 }).toBe(3);
    expect(await m.frame.getByTestId("worlds").textContent()).toContain("Amberlight");
    await m.frame.getByRole("button", { name: "Open Amberlight" }).click();
    await expect.poll(() => m.frame.getByTestId("open-world").locator("h2").textContent(), { timeout: 10_000 }).toBe("Amberlight");
    await m.screenshot("world-list");
    // The state names the world opened and the rows shown, no more: ChatGPT shows widget state to
    // the model, and the opened world's description, dates and counts went into it (outside probe, 2026-11-29).
    const kept = JSON.parse(
      await m.document().evaluate(() => {
        const openai = (window as unknown as { openai?: { widgetState?: unknown } }).openai;
        if (openai) return JSON.stringify(openai.widgetState ?? null);
        return Object.entries(localStorage).find(([k]) => k.startsWith("worldcrafter:widget-state:world-list"))?.[1] ?? "null";
      }),
    ) as { openId?: string; more?: Json[] };
    const amberlight = ((await f.call("list_worlds", { nameContains: "Amberlight" })).structuredContent as { worlds: { id: string }[] }).worlds[0]!.id;
    expect(kept.openId).toBe(amberlight);
    expect(Object.keys(kept).sort()).toEqual(["more", "nextCursor", "openId"]);
    for (const row of kept.more ?? []) expect(Object.keys(row).sort()).toEqual(["id", "name", "theme"]);

    const callsBefore = m.calls.length;
    await m.reload();
    await expect.poll(() => m.frame.getByTestId("worlds").locator("li").count()).toBe(3);
    // A new frame reads the opened world again.
    await expect.poll(() => m.frame.getByTestId("open-world").locator("h2").textContent(), { timeout: 10_000 }).toBe("Amberlight");
    expect(m.calls.slice(callsBefore).map((c) => c.name)).toEqual(["get_world"]);
    await m.page.close();
  });

  it("shows a hostile world name as the characters it is, in the card and in the list", async () => {
    const f = await fixture();
    const created = await f.call("create_world", { name: HOSTILE, theme: `<script>alert("theme")</script>` });
    const worldId = worldOf(created).id;
    await f.call("create_character", { worldId, name: `"><svg onload=alert(2)>`, role: "<b>bold</b>" });
    const card = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: await f.call("get_world", { worldId }) });
    await expect.poll(() => card.frame.locator("h1").textContent()).toBe(HOSTILE);
    expect(await card.frame.getByTestId("characters").textContent()).toContain(`"><svg onload=alert(2)>`);
    const doc = card.document();
    expect(await doc.locator("img, svg, b").count()).toBe(0);
    expect(await doc.evaluate(() => document.querySelector("h1")?.innerHTML)).toBe("&lt;img src=x onerror=alert(1)&gt;");

    const list = await mount(host, f, { html: await f.widgetHtml("list_worlds"), toolName: "list_worlds", toolInput: {}, toolResult: await f.call("list_worlds", {}) });
    await expect.poll(() => list.frame.getByTestId("worlds").textContent()).toContain(HOSTILE);
    expect(await list.document().locator("img").count()).toBe(0);
    // Give any injected handler a moment to fire: none may.
    await card.page.waitForTimeout(300);
    expect([...card.dialogs, ...list.dialogs]).toEqual([]);
    await card.page.close();
    await list.page.close();
  });
});

/** A world with three characters and a location, as the expanded view and the files need. */
async function populatedWorld(f: Fixture, name: string): Promise<{ worldId: string; shown: Json }> {
  const worldId = worldOf(await f.call("create_world", { name, theme: "fantasy", tone: "wistful", description: "Reeds that whisper names." })).id;
  for (const [character, role] of [
    ["Ada Reed", "heir"],
    ["Bram Weald", "gamekeeper"],
    ["Cass Mire", "witch"],
  ] as const)
    await f.call("create_character", { worldId, name: character, role });
  await f.call("create_location", { worldId, name: "The Weir", kind: "village" });
  return { worldId, shown: await f.call("get_world", { worldId }) };
}

/**
 * Where the emulated ChatGPT keeps uploads: a loopback HTTP server answering each file at its
 * download URL, as ChatGPT's file storage does (the server may fetch loopback only behind its test switch).
 */
async function uploadStore(): Promise<{ put(name: string, text: string): { fileId: string; downloadUrl: string }; close(): Promise<void> }> {
  const files = new Map<string, string>();
  const http = createServer((req, res) => {
    const text = files.get(req.url ?? "");
    res.writeHead(text === undefined ? 404 : 200, { "content-type": "text/markdown; charset=utf-8" });
    res.end(text ?? "not found");
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    put(name, text) {
      const fileId = `file_${files.size + 1}_${name.replace(/[^a-z0-9.]/gi, "")}`;
      files.set(`/${fileId}`, text);
      return { fileId, downloadUrl: `http://127.0.0.1:${port}/${fileId}` };
    },
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

const filesOf = (result: Json) => ((result.structuredContent as { files?: { download_url: string; file_name: string }[] } | undefined)?.files ?? []);
const eventsNamed = async (m: Mounted, name: string) => (await m.events()).filter((e) => e.name === name).map((e) => e.detail);

/** No element wider than the frame: nothing to scroll sideways on a phone. */
const overflowX = (m: Mounted) => m.document().evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe.each(HOSTS)("host APIs in the %s host", (host) => {
  it("Export opens the Markdown file's download_url through the host, and that URL serves the file", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Reedmere");
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Reedmere");
    await m.frame.getByRole("button", { name: "Export" }).click();
    // A call is recorded before its answer arrives: wait for the answer.
    await expect.poll(() => Object.keys(m.calls.find((c) => c.name === "export_world")?.result ?? {}).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const files = filesOf(m.calls.find((c) => c.name === "export_world")!.result);
    expect(files.map((file) => file.file_name)).toEqual(["Reedmere.md", "Reedmere.json"]);
    await expect.poll(() => eventsNamed(m, "openExternal"), { timeout: 10_000 }).toEqual([files[0]!.download_url]);
    expect(await m.frame.getByTestId("status").textContent()).toContain(files[0]!.file_name);
    const download = await fetch(files[0]!.download_url);
    expect(download.status).toBe(200);
    expect(await download.text()).toContain("Reedmere");
    await m.page.close();
  });

  it("Import passes the chosen file to import_world: uploaded through ChatGPT, inline elsewhere", async () => {
    const f = await fixture();
    const { worldId } = await populatedWorld(f, "Fenhollow");
    // The file to import: the server's own Markdown export, through its download link.
    const files = filesOf(await f.call("export_world", { worldId }));
    expect(files[0]?.file_name).toBe("Fenhollow.md");
    const markdown = await (await fetch(files[0]!.download_url)).text();
    const uploads: { name: string; text: string }[] = [];
    const store = await uploadStore();
    const m = await mount(host, f, {
      html: await f.widgetHtml("list_worlds"),
      toolName: "list_worlds",
      toolInput: {},
      toolResult: await f.call("list_worlds", {}),
      upload: async (file) => {
        uploads.push(file);
        return store.put(file.name, file.text);
      },
    });
    await expect.poll(() => m.frame.getByTestId("worlds").textContent()).toContain("Fenhollow");
    await m.frame.locator("#import-file").setInputFiles({ name: "fenhollow.md", mimeType: "text/markdown", buffer: Buffer.from(markdown) });
    // A call is recorded before its answer arrives: wait for the answer.
    await expect.poll(() => Object.keys(m.calls.find((c) => c.name === "import_world")?.result ?? {}).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const call = m.calls.find((c) => c.name === "import_world")!;
    if (host === "chatgpt") {
      // seed 002 §file parameters: the host uploads, the tool gets the file reference.
      expect(uploads).toEqual([{ name: "fenhollow.md", type: "text/markdown", text: markdown }]);
      const stored = call.args.file as { download_url: string; file_id: string };
      expect(call.args).toEqual({ file: { download_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/file_1_fenhollow\.md$/), file_id: "file_1_fenhollow.md" } });
      // The reference leads to the very bytes chosen.
      expect(await (await fetch(stored.download_url)).text()).toBe(markdown);
    } else {
      expect(call.args).toEqual({ document: markdown, format: "markdown" });
    }
    // The round trip, in both hosts: the imported world is listed beside the original.
    expect(call.result.isError, JSON.stringify(call.result).slice(0, 300)).toBeFalsy();
    await expect.poll(() => m.frame.getByTestId("status").textContent(), { timeout: 10_000 }).toContain("Imported");
    const names = ((await f.call("list_worlds", {})).structuredContent as { worlds: { name: string }[] }).worlds.map((w) => w.name);
    expect(names.filter((n) => n.startsWith("Fenhollow")).length).toBe(2);
    // Whatever the server answered is on the status line, never silence.
    await expect.poll(() => m.frame.getByTestId("status").textContent(), { timeout: 10_000 }).not.toBe("");
    await m.screenshot("world-list-import");
    await m.page.close();
    await store.close();
  });

  it("Expand shows the world fullscreen: characters, locations and a graph with one node per character", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Mirefield");
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown, availableDisplayModes: ["inline", "fullscreen", "pip"] });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Mirefield");
    await m.screenshot("world-card");
    // Both hosts offer pip here (ChatGPT always; the MCP Apps host was told to).
    await m.frame.getByRole("button", { name: "Picture in picture" }).click();
    await expect.poll(() => m.document().evaluate(() => document.documentElement.dataset.displayMode)).toBe("pip");
    // pip is a small floating window: the compact card, with a way back.
    expect(await m.frame.getByTestId("relations-graph").count()).toBe(0);
    await m.screenshot("world-card-pip");
    await m.frame.getByRole("button", { name: "Collapse" }).click();
    await expect.poll(() => m.document().evaluate(() => document.documentElement.dataset.displayMode)).toBe("inline");
    await m.frame.getByRole("button", { name: "Expand" }).click();
    await expect.poll(() => eventsNamed(m, "requestDisplayMode")).toEqual(["pip", "inline", "fullscreen"]);
    await expect.poll(() => m.document().evaluate(() => document.documentElement.dataset.displayMode)).toBe("fullscreen");
    const graph = m.frame.getByTestId("relations-graph");
    await expect.poll(() => graph.locator("g.node").count(), { timeout: 10_000 }).toBe(3);
    expect((await graph.locator("g.node text").allTextContents()).sort()).toEqual(["Ada Reed", "Bram Weald", "Cass Mire"]);
    // Everyone in a world is related to everyone else there: three characters, three lines.
    expect(await graph.locator("line.edge").count()).toBe(3);
    expect(await m.frame.getByTestId("locations").textContent()).toContain("The Weir");
    await m.screenshot("world-card-fullscreen");
    await m.frame.getByRole("button", { name: "Collapse" }).click();
    await expect.poll(() => m.document().evaluate(() => document.documentElement.dataset.displayMode)).toBe("inline");
    await m.page.close();
  });

  it("editing a character opens in the host's modal (ChatGPT) or a dialog in the frame, and saves", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Osierby");
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown });
    await expect.poll(() => m.frame.getByTestId("characters").textContent()).toContain("Bram Weald");
    await m.frame.getByRole("button", { name: "Edit Bram Weald" }).click();
    const editor = host === "chatgpt" ? m.page.frameLocator("[data-testid=host-modal] iframe") : m.frame;
    if (host === "chatgpt") await expect.poll(() => eventsNamed(m, "requestModal")).toHaveLength(1);
    await expect.poll(() => editor.locator("#edit-name").inputValue(), { timeout: 10_000 }).toBe("Bram Weald");
    // One trait per line: a comma is part of a trait.
    await editor.locator("#edit-traits").fill("watchful\nloyal, to a fault");
    await editor.locator("#edit-role").fill("warden");
    await m.screenshot("world-card-edit");
    await editor.getByRole("button", { name: "Save" }).click();
    const bram = () => m.calls.find((c) => c.name === "update_character");
    // Only the fields the user changed are sent (the name was left alone).
    await expect.poll(() => bram()?.args, { timeout: 10_000 }).toEqual({ characterId: expect.any(String), role: "warden", traits: ["watchful", "loyal, to a fault"] });
    // The modal closes itself (requestClose from the modal frame); the dialog goes away.
    if (host === "chatgpt") await expect.poll(() => m.page.locator("[data-testid=host-modal]").count()).toBe(0);
    else await expect.poll(() => m.frame.getByTestId("character-editor").count()).toBe(0);
    // The card shows the edit at once (the modal shares the widget state with it).
    await expect.poll(() => m.frame.getByTestId("characters").textContent()).toContain("Bram Weald · warden");
    const id = ((bram()!.result.structuredContent as { character: { id: string } }).character.id);
    expect(((await f.call("get_character", { characterId: id })).structuredContent as { character: { role: string } }).character.role).toBe("warden");
    await m.page.close();
  });

  it("Delete asks the user in the card, deletes with the world's exact name, and the widget asks to close", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Sedgewick");
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Sedgewick");
    await m.frame.getByRole("button", { name: "Delete world" }).click();
    expect(await m.frame.getByRole("alertdialog").textContent()).toContain("Sedgewick");
    expect(m.calls.filter((c) => c.name === "delete_world")).toEqual([]);
    await m.screenshot("world-card-delete");
    await m.frame.getByRole("button", { name: "Delete for good" }).click();
    await expect.poll(() => eventsNamed(m, "requestClose"), { timeout: 10_000 }).toHaveLength(1);
    expect(m.calls.find((c) => c.name === "delete_world")!.args).toEqual({ worldId, confirmName: "Sedgewick" });
    expect((await f.call("get_world", { worldId })).isError).toBe(true);
    // The host removed the frame.
    await expect.poll(() => m.page.locator("#host iframe").count()).toBe(0);
    await m.page.close();
  });

  it("follows the host's locale (labels, prompts, dates in the user's timezone) and switches live", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Lakeshire");
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown, locale: "ja-JP", timeZone: "Asia/Tokyo" });
    await expect.poll(() => m.frame.getByRole("button", { name: "エクスポート" }).count()).toBe(1);
    expect(await m.document().evaluate(() => document.documentElement.lang)).toBe("ja-JP");
    const updatedAt = (shown.structuredContent as { world: { updatedAt: string } }).world.updatedAt;
    const tokyo = new Intl.DateTimeFormat("ja-JP", { dateStyle: "medium", timeStyle: "short", timeZone: "Asia/Tokyo" }).format(new Date(updatedAt));
    expect(await m.frame.getByTestId("updated").textContent()).toContain(tokyo);
    await m.screenshot("world-card-ja");
    await m.control("setLocale", "fr-FR");
    await expect.poll(() => m.frame.getByRole("button", { name: "Exporter" }).count()).toBe(1);
    expect(await m.frame.getByTestId("counts").textContent()).toBe(`3 personnages · 1 lieu · Mis à jour le ${new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short", timeZone: "Asia/Tokyo" }).format(new Date(updatedAt))}`);
    await m.frame.getByRole("button", { name: "En savoir plus" }).click();
    await expect.poll(() => m.events()).toContainEqual(expect.objectContaining({ name: "followUp" }));
    expect(JSON.stringify(await eventsNamed(m, "followUp"))).toContain("Parle-moi davantage du monde « Lakeshire »");
    await m.control("setLocale", "zh-CN");
    await expect.poll(() => m.frame.getByRole("button", { name: "导出" }).count()).toBe(1);
    await m.page.close();
  });

  // Outside probe, 2026-11-29: the first world's load (or its "loading" mark) stayed, so the card
  // handed another world's result showed "Loading…" for good and never loaded it.
  it("expanded, and handed another world's result, shows and loads that world", async () => {
    const f = await fixture();
    const first = await populatedWorld(f, "Firstmoor");
    const second = await populatedWorld(f, "Secondvale");
    await f.call("create_location", { worldId: second.worldId, name: "Second Ford", kind: "ford" });
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId: first.worldId }, toolResult: first.shown, availableDisplayModes: ["inline", "fullscreen"] });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Firstmoor");
    await m.frame.getByRole("button", { name: "Expand" }).click();
    await expect.poll(() => m.frame.getByTestId("locations").textContent(), { timeout: 10_000 }).toContain("The Weir");
    await m.showResult({ worldId: second.worldId }, second.shown);
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Secondvale");
    await expect.poll(async () => ((await m.frame.getByTestId("locations").count()) ? await m.frame.getByTestId("locations").textContent() : ""), { timeout: 10_000 }).toContain("Second Ford");
    expect(m.calls.some((c) => c.name === "list_locations" && c.args.worldId === second.worldId)).toBe(true);
  });

  it("fits a phone (390 px): no horizontal overflow in any widget, inline or expanded, with safe-area insets", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "A world with a rather long name to wrap on small screens");
    const characterId = ((await f.call("list_characters", { worldId })).structuredContent as { characters: { id: string }[] }).characters[0]!.id;
    const safeArea = { top: 20, right: 0, bottom: 34, left: 0 };
    const views = [
      { name: "world-card", tool: "get_world", input: { worldId }, result: shown },
      { name: "character-card", tool: "get_character", input: { characterId }, result: await f.call("get_character", { characterId }) },
      { name: "world-list", tool: "list_worlds", input: {}, result: await f.call("list_worlds", {}) },
    ];
    for (const v of views) {
      const m = await mount(host, f, { html: await f.widgetHtml(v.tool), toolName: v.tool, toolInput: v.input, toolResult: v.result, width: 390, safeArea });
      await expect.poll(() => m.frame.locator("h1").count()).toBe(1);
      expect(await overflowX(m)).toBeLessThanOrEqual(0);
      // The content keeps clear of the host's chrome.
      expect(await m.document().evaluate(() => getComputedStyle(document.getElementById("root")!).paddingBottom)).toBe("34px");
      await m.screenshot(v.name);
      if (v.name === "world-card") {
        await m.frame.getByRole("button", { name: "Expand" }).click();
        await expect.poll(() => m.frame.getByTestId("relations-graph").locator("g.node").count(), { timeout: 10_000 }).toBe(3);
        expect(await overflowX(m)).toBeLessThanOrEqual(0);
        await m.screenshot("world-card-fullscreen");
      }
      await m.page.close();
    }
  });
});

describe("MCP Apps host events", () => {
  // Outside probe (2026-11-29): a host context field of the wrong type threw on every render,
  // leaving the card blank.
  it("a host context field of the wrong type is read as absent: the card still renders", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Oddhost");
    const m = await mount("mcp-apps", f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown, availableDisplayModes: "fullscreen" as unknown as string[] });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Oddhost");
    expect(m.errors).toEqual([]);
    await m.page.close();
  });


  it("shows 'preparing' while the arguments stream, then the result; a cancelled call says so", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Brackwater");
    const html = await f.widgetHtml("get_world");
    const m = await mount("mcp-apps", f, { html, toolName: "get_world", toolInput: { worldId }, toolResult: shown, holdResult: { partialInput: { worldId: worldId.slice(0, 4) } } });
    await expect.poll(() => m.frame.getByTestId("phase").textContent()).toBe("Preparing…");
    await m.control("deliverResult");
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Brackwater");
    await m.page.close();

    const c = await mount("mcp-apps", f, { html, toolName: "get_world", toolInput: { worldId }, toolResult: shown, holdResult: { partialInput: {} } });
    await expect.poll(() => c.frame.getByTestId("phase").textContent()).toBe("Preparing…");
    await c.control("cancel", "The user stopped it.");
    await expect.poll(() => c.frame.getByTestId("phase").textContent()).toBe("The request was cancelled. The user stopped it.");
    await c.page.close();
  });

  it("answers the host's teardown after saving its state, and applies the host's fonts", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Eelmarsh");
    const fonts = "@font-face { font-family: HostSans; src: local(Arial); }";
    const m = await mount("mcp-apps", f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown, fonts });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Eelmarsh");
    expect(await m.document().evaluate(() => document.getElementById("worldcrafter-host-fonts")?.textContent)).toBe(fonts);
    await m.frame.locator("#new-name").fill("Half-typed");
    expect(await m.control("teardown")).toEqual({});
    const saved = await m.document().evaluate(() => Object.entries(localStorage).find(([k]) => k.startsWith("worldcrafter:widget-state:world-card"))?.[1]);
    expect(JSON.parse(saved ?? "{}")).toMatchObject({ draftName: "Half-typed" });
    await m.page.close();
  });
});

describe("the /preview page", () => {
  it("renders every widget with sample data in both emulated hosts; the theme and locale switches reach each; Export records the sample file link", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${server()}/preview`);
    const frames = page.locator("iframe");
    await expect.poll(() => frames.count(), { timeout: 10_000 }).toBe(6);
    const widgetFrames = () => page.frames().filter((f) => f !== page.mainFrame());
    const headings = async () => Promise.all(widgetFrames().map((f) => f.locator("h1").textContent({ timeout: 5_000 })));
    await expect.poll(headings, { timeout: 10_000 }).toEqual(["Emberfall", "Emberfall", "Ilsa Varn", "Ilsa Varn", "Your worlds", "Your worlds"]);
    // The sample list holds a hostile name: text in both hosts, no element, no dialog.
    for (const f of widgetFrames().slice(4)) {
      expect(await f.getByTestId("worlds").textContent()).toContain(HOSTILE);
      expect(await f.locator("img").count()).toBe(0);
    }
    await page.getByRole("button", { name: "Dark theme" }).click();
    const themes = () => Promise.all(widgetFrames().map((f) => f.evaluate(() => document.documentElement.dataset.theme)));
    await expect.poll(themes).toEqual(Array(6).fill("dark"));
    await page.screenshot({ path: join(SCREENSHOTS, "preview-dark.png"), fullPage: true });
    // The sample server answers export_world with file references; the hosts record the link opened.
    await widgetFrames()[0]!.getByRole("button", { name: "Export" }).click();
    await expect.poll(() => page.getByRole("list", { name: "world-card host events" }).textContent()).toContain("openExternal: \"http");
    await expect.poll(() => page.getByRole("list", { name: "world-card host events" }).textContent()).toContain("emberfall.md");
    // The locale switch reaches every widget in both hosts.
    await page.getByRole("combobox", { name: "Host locale" }).selectOption("ja-JP");
    await expect.poll(headings).toEqual(["Emberfall", "Emberfall", "Ilsa Varn", "Ilsa Varn", "あなたの世界", "あなたの世界"]);
    expect(dialogs).toEqual([]);
    await page.close();
  });
});

/** Whole elements of the widget that reach past its right edge (clipped by #root's overflow-x). */
const clippedRight = (m: Mounted) =>
  m.document().evaluate(() => {
    const right = document.documentElement.clientWidth + 1;
    return [...document.querySelectorAll("#root *")].filter((e) => e.getBoundingClientRect().right > right).map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
  });

const inputSchemaOf = (f: Fixture, tool: string) => (f.tools.find((t) => t.name === tool)?.inputSchema as { properties: Record<string, { maxLength?: number; items?: { maxLength?: number }; maxItems?: number }> }).properties;

describe("MCP Apps widget state", () => {
  it("belongs to one rendered result: another world's card, or a later card of the same world, never shows a character twice or another world's", async () => {
    const f = await fixture();
    const context = await browser.newContext();
    const make = async (name: string) => {
      const worldId = worldOf(await f.call("create_world", { name, theme: "fantasy" })).id;
      await f.call("create_character", { worldId, name: `${name} Elder` });
      return worldId;
    };
    const a = await make("Aldmoor");
    const b = await make("Briarholt");
    const html = await f.widgetHtml("get_world");
    // Every card of the emulator has the same toolInfo.id, as JSON-RPC ids repeat across sessions.
    const cardA = await mount("mcp-apps", f, { html, toolName: "get_world", toolInput: { worldId: a }, toolResult: await f.call("get_world", { worldId: a }), context });
    await expect.poll(() => cardA.frame.locator("h1").textContent()).toBe("Aldmoor");
    await cardA.frame.locator("#new-name").fill("Ghost");
    await cardA.frame.getByRole("button", { name: "Add character" }).click();
    await expect.poll(() => cardA.frame.getByTestId("status").textContent(), { timeout: 10_000 }).toContain("Ghost joined Aldmoor");

    const cardB = await mount("mcp-apps", f, { html, toolName: "get_world", toolInput: { worldId: b }, toolResult: await f.call("get_world", { worldId: b }), context });
    await expect.poll(() => cardB.frame.locator("h1").textContent()).toBe("Briarholt");
    expect(await cardB.frame.getByTestId("characters").locator("li").allTextContents()).toEqual([expect.stringContaining("Briarholt Elder")]);
    expect(await cardB.frame.getByTestId("counts").textContent()).toContain("1 character ·");

    // A later get_world of A already lists Ghost: once, and counted once.
    const later = await mount("mcp-apps", f, { html, toolName: "get_world", toolInput: { worldId: a }, toolResult: await f.call("get_world", { worldId: a }), context });
    await expect.poll(() => later.frame.locator("h1").textContent()).toBe("Aldmoor");
    const rows = await later.frame.getByTestId("characters").locator("li").allTextContents();
    expect(rows.filter((r) => r.includes("Ghost"))).toHaveLength(1);
    expect(await later.frame.getByTestId("counts").textContent()).toContain("2 characters ·");
    // The first card, rendered again, still has its own addition.
    await cardA.reload();
    await expect.poll(() => cardA.frame.getByTestId("characters").textContent()).toContain("Ghost");
    expect(await cardA.frame.getByTestId("counts").textContent()).toContain("2 characters ·");
    await context.close();
  });
});

describe.each(HOSTS)("review fixes in the %s host", (host) => {
  it("the editor keeps traits with commas exactly and sends only the fields changed", async () => {
    const f = await fixture();
    const worldId = worldOf(await f.call("create_world", { name: "Commaby", theme: "fantasy" })).id;
    const ana = characterOf(await f.call("create_character", { worldId, name: "Ana", role: "pilot", traits: ["loyal, to a fault", "brave"], backstory: "Para one.\n\nPara two." }));
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: await f.call("get_world", { worldId }) });
    await expect.poll(() => m.frame.getByTestId("characters").textContent()).toContain("Ana");
    await m.frame.getByRole("button", { name: "Edit Ana" }).click();
    const editor = host === "chatgpt" ? m.page.frameLocator("[data-testid=host-modal] iframe") : m.frame;
    await expect.poll(() => editor.locator("#edit-name").inputValue(), { timeout: 10_000 }).toBe("Ana");
    expect(await editor.locator("#edit-traits").inputValue()).toBe("loyal, to a fault\nbrave");
    await editor.locator("#edit-name").fill("Ana B");
    await editor.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => m.calls.find((c) => c.name === "update_character")?.args, { timeout: 10_000 }).toEqual({ characterId: ana.id, name: "Ana B" });
    // A call is recorded before its answer arrives: wait for the answer.
    await expect.poll(() => Object.keys(m.calls.find((c) => c.name === "update_character")!.result).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const saved = (await f.call("get_character", { characterId: ana.id })).structuredContent as { character: { name: string; traits: string[]; backstory: string } };
    expect(saved.character).toMatchObject({ name: "Ana B", traits: ["loyal, to a fault", "brave"], backstory: "Para one.\n\nPara two." });
    await m.page.close();
  });

  it("adds and saves without allow-forms (ext-apps' example sandbox): button clicks and Enter", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Formless");
    // The ChatGPT emulator injects window.openai through the parent, so it keeps allow-same-origin.
    const sandbox = host === "mcp-apps" ? "allow-scripts" : "allow-scripts allow-same-origin";
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown, sandbox });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Formless");
    await m.frame.locator("#new-name").fill("Dov");
    await m.frame.getByRole("button", { name: "Add character" }).click();
    await expect.poll(() => m.frame.getByTestId("status").textContent(), { timeout: 10_000 }).toContain("Dov joined Formless");
    await m.frame.locator("#new-name").fill("Esk");
    await m.frame.locator("#new-name").press("Enter");
    await expect.poll(() => m.frame.getByTestId("status").textContent(), { timeout: 10_000 }).toContain("Esk joined Formless");
    expect(await m.frame.getByTestId("characters").textContent()).toContain("Esk");

    await m.frame.getByRole("button", { name: "Edit Cass Mire" }).click();
    const editor = host === "chatgpt" ? m.page.frameLocator("[data-testid=host-modal] iframe") : m.frame;
    await expect.poll(() => editor.locator("#edit-role").inputValue(), { timeout: 10_000 }).toBe("witch");
    await editor.locator("#edit-role").fill("seer");
    await editor.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => m.calls.find((c) => c.name === "update_character")?.args, { timeout: 10_000 }).toMatchObject({ role: "seer" });
    await expect.poll(() => m.frame.getByTestId("characters").textContent()).toContain("Cass Mire · seer");
    await m.page.close();
  });

  it("update_world's card lists the world's characters like get_world's", async () => {
    const f = await fixture();
    const { worldId } = await populatedWorld(f, "Renameton");
    const updated = await f.call("update_world", { worldId, tone: "bright" });
    const m = await mount(host, f, { html: await f.widgetHtml("update_world"), toolName: "update_world", toolInput: { worldId, tone: "bright" }, toolResult: updated });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Renameton");
    expect(await m.frame.getByTestId("counts").textContent()).toContain("3 characters ·");
    expect(await m.frame.getByTestId("characters").locator("li").count()).toBe(3);
    await m.page.close();
  });

  it("an error result shows its message, not an empty state, in every widget", async () => {
    const f = await fixture();
    const anonymous = await fixture(true);
    const cases = [
      { tool: "list_worlds", input: {}, result: await anonymous.call("list_worlds", {}), empty: "No worlds" },
      { tool: "get_world", input: { worldId: "missing" }, result: await f.call("get_world", { worldId: "missing" }), empty: "No world to show" },
      { tool: "get_character", input: { characterId: "missing" }, result: await f.call("get_character", { characterId: "missing" }), empty: "No character to show" },
    ];
    for (const c of cases) {
      expect(c.result.isError).toBe(true);
      const message = ((c.result.content as { text: string }[])[0]!).text;
      const m = await mount(host, f, { html: await f.widgetHtml(c.tool), toolName: c.tool, toolInput: c.input, toolResult: c.result });
      await expect.poll(() => m.frame.locator("#root").textContent(), { timeout: 5_000 }).toContain(message);
      expect(await m.frame.getByRole("alert").textContent()).toBe(message);
      expect(await m.frame.locator("#root").textContent()).not.toContain(c.empty);
      await m.page.close();
    }
  });

  // Outside probe (2026-11-29): ChatGPT hands a widget structuredContent alone, and an error there
  // without a string message showed the empty state ("No worlds yet").
  it("a failed result whose error has no message still shows as a failure", async () => {
    const f = await fixture();
    for (const error of [{ code: "internal" }, { code: "internal", message: 7 }]) {
      for (const c of [
        { tool: "list_worlds", input: {}, empty: "No worlds" },
        { tool: "get_world", input: { worldId: "missing" }, empty: "No world to show" },
        { tool: "get_character", input: { characterId: "missing" }, empty: "No character to show" },
      ]) {
        const m = await mount(host, f, { html: await f.widgetHtml(c.tool), toolName: c.tool, toolInput: c.input, toolResult: { content: [], isError: true, structuredContent: { error } } });
        await expect.poll(() => m.frame.getByRole("alert").count(), { timeout: 5_000 }).toBe(1);
        expect(await m.frame.locator("#root").textContent()).not.toContain(c.empty);
        await m.page.close();
      }
    }
  });

  it("a host refusing a follow-up or a display mode is shown on the status line", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Refusal Reach");
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown, refuse: ["message", "displayMode"] });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Refusal Reach");
    const status = m.frame.getByTestId("status");
    await m.frame.getByRole("button", { name: "Ask about it" }).click();
    await expect.poll(() => status.textContent()).toContain("refused");
    expect(await status.getAttribute("class")).toContain("error");
    await m.frame.getByRole("button", { name: "Expand" }).click();
    await expect.poll(() => eventsNamed(m, "requestDisplayMode")).toEqual(["fullscreen"]);
    await expect.poll(() => status.textContent()).toContain("refused");
    expect(m.errors).toEqual([]);
    await m.page.close();

    const characterId = ((await f.call("list_characters", { worldId })).structuredContent as { characters: { id: string }[] }).characters[0]!.id;
    const c = await mount(host, f, { html: await f.widgetHtml("get_character"), toolName: "get_character", toolInput: { characterId }, toolResult: await f.call("get_character", { characterId }), refuse: ["message"] });
    await expect.poll(() => c.frame.locator("h1").count()).toBe(1);
    await c.frame.getByRole("button", { name: "Develop backstory" }).click();
    await expect.poll(() => c.frame.getByTestId("status").textContent()).toContain("refused");
    expect(c.errors).toEqual([]);
    await c.page.close();
  });

  it("Delete after a rename says so as an error, shows the current name, and deletes on a second confirm", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Oldname");
    await f.call("update_world", { worldId, name: "Newname" });
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Oldname");
    await m.frame.getByRole("button", { name: "Delete world" }).click();
    await m.frame.getByRole("button", { name: "Delete for good" }).click();
    const status = m.frame.getByTestId("status");
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toContain("Newname");
    expect(await status.getAttribute("class")).toContain("error");
    // The server's words to the model are not the user's.
    expect(await status.textContent()).not.toContain("confirmName");
    expect(await m.frame.getByRole("alertdialog").textContent()).toContain("Newname");
    expect(await m.frame.locator("h1").textContent()).toBe("Newname");
    expect((await f.call("get_world", { worldId })).isError).toBeFalsy();
    await m.frame.getByRole("button", { name: "Delete for good" }).click();
    await expect.poll(() => eventsNamed(m, "requestClose"), { timeout: 10_000 }).toHaveLength(1);
    expect(m.calls.filter((c) => c.name === "delete_world").map((c) => c.args.confirmName)).toEqual(["Oldname", "Newname"]);
    expect((await f.call("get_world", { worldId })).isError).toBe(true);
    await m.page.close();
  });

  it("limits: the editor's match update_character's schema; a file over the server's 1 MiB is refused in the widget", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Limitland");
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown });
    await expect.poll(() => m.frame.getByTestId("characters").textContent()).toContain("Ada Reed");
    await m.frame.getByRole("button", { name: "Edit Ada Reed" }).click();
    const editor = host === "chatgpt" ? m.page.frameLocator("[data-testid=host-modal] iframe") : m.frame;
    await expect.poll(() => editor.locator("#edit-name").inputValue(), { timeout: 10_000 }).toBe("Ada Reed");
    const schema = inputSchemaOf(f, "update_character");
    for (const field of ["name", "role", "backstory"]) expect(await editor.locator(`#edit-${field}`).getAttribute("maxlength"), field).toBe(String(schema[field]!.maxLength));
    await m.page.close();

    const list = await mount(host, f, { html: await f.widgetHtml("list_worlds"), toolName: "list_worlds", toolInput: {}, toolResult: await f.call("list_worlds", {}), upload: async () => ({ fileId: "file_big", downloadUrl: "http://127.0.0.1:9/big.md" }) });
    await expect.poll(() => list.frame.getByTestId("worlds").textContent()).toContain("Limitland");
    await list.frame.locator("#import-file").setInputFiles({ name: "big.md", mimeType: "text/markdown", buffer: Buffer.alloc(1_500_000, "a") });
    await expect.poll(() => list.frame.getByTestId("status").textContent(), { timeout: 10_000 }).toBe("That file is too large (1 MB at most).");
    expect(list.calls.filter((c) => c.name === "import_world")).toEqual([]);
    await list.page.close();
  });

  it("on a phone, long unbroken theme, trait and role text wraps inside the card; backstory keeps its paragraphs", async () => {
    const f = await fixture();
    const worldId = worldOf(await f.call("create_world", { name: "Wrapford", theme: "W".repeat(60), tone: "M".repeat(120), description: "First line.\nSecond line." })).id;
    const c = characterOf(await f.call("create_character", { worldId, name: "Long", role: "R".repeat(120), traits: ["T".repeat(60), "brave"], backstory: "Para one.\n\nPara two." }));
    const card = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: await f.call("get_world", { worldId }), width: 390 });
    await expect.poll(() => card.frame.locator("h1").textContent()).toBe("Wrapford");
    expect(await clippedRight(card)).toEqual([]);
    expect(await card.frame.getByText("First line.").evaluate((p) => (p as HTMLElement).innerText)).toBe("First line.\nSecond line.");
    await card.page.close();
    const char = await mount(host, f, { html: await f.widgetHtml("get_character"), toolName: "get_character", toolInput: { characterId: c.id }, toolResult: await f.call("get_character", { characterId: c.id }), width: 390 });
    await expect.poll(() => char.frame.locator("h1").textContent()).toBe("Long");
    expect(await clippedRight(char)).toEqual([]);
    expect(await char.frame.getByText("Para one.").evaluate((p) => (p as HTMLElement).innerText)).toBe("Para one.\n\nPara two.");
    await char.page.close();
  });
});

const callsNamed = (m: Mounted, name: string) => m.calls.filter((c) => c.name === name);
const textOf = (result: Json) => ((result.content as { text: string }[])[0]!).text;

/**
 * Export, and its answer: a round trip through the host and the server. Calls the widget issued
 * before it have been recorded by then, so counting calls after it needs no timing.
 */
async function exportRoundTrip(m: Mounted): Promise<void> {
  const before = callsNamed(m, "export_world").length;
  await m.frame.getByRole("button", { name: "Export" }).click();
  await expect.poll(() => callsNamed(m, "export_world").filter((c) => Object.keys(c.result).length > 0).length, { timeout: 10_000 }).toBe(before + 1);
}

describe.each(HOSTS)("second review fixes in the %s host", (host) => {
  it("a failed Expand shows its error once and calls nothing more until the user retries", async () => {
    const f = await fixture();
    const html = await f.widgetHtml("get_world");
    // The world is deleted after the card was drawn: every list call answers not_found.
    const { worldId, shown } = await populatedWorld(f, "Vanishmere");
    await f.call("delete_world", { worldId, confirmName: "Vanishmere" });
    const gone = textOf(await f.call("list_characters", { worldId, limit: 50 }));
    const m = await mount(host, f, { html, toolName: "get_world", toolInput: { worldId }, toolResult: shown });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Vanishmere");
    await m.frame.getByRole("button", { name: "Expand" }).click();
    await expect.poll(() => callsNamed(m, "list_characters").filter((c) => Object.keys(c.result).length > 0).length, { timeout: 10_000 }).toBeGreaterThan(0);
    await exportRoundTrip(m);
    expect(callsNamed(m, "list_characters")).toHaveLength(1);
    expect(callsNamed(m, "list_locations")).toHaveLength(1);
    expect(await m.frame.getByTestId("expand-error").textContent()).toContain(gone);
    expect(await m.frame.getByTestId("expand-error").getAttribute("role")).toBe("alert");
    // Retrying is the user's choice, and one click is one more attempt.
    await m.frame.getByRole("button", { name: "Try again" }).click();
    await expect.poll(() => callsNamed(m, "list_characters").filter((c) => Object.keys(c.result).length > 0).length, { timeout: 10_000 }).toBe(2);
    await exportRoundTrip(m);
    expect(callsNamed(m, "list_characters")).toHaveLength(2);
    expect(callsNamed(m, "list_locations")).toHaveLength(2);
    expect(await m.frame.getByTestId("expand-error").count()).toBe(1);
    await m.page.close();

    // A host refusing one of the calls: the same, one attempt and its message.
    const live = await populatedWorld(f, "Refusewick");
    const r = await mount(host, f, { html, toolName: "get_world", toolInput: { worldId: live.worldId }, toolResult: live.shown, refuseTools: ["list_locations"] });
    await expect.poll(() => r.frame.locator("h1").textContent()).toBe("Refusewick");
    await r.frame.getByRole("button", { name: "Expand" }).click();
    await expect.poll(() => callsNamed(r, "list_locations").length, { timeout: 10_000 }).toBeGreaterThan(0);
    await exportRoundTrip(r);
    expect(callsNamed(r, "list_locations")).toHaveLength(1);
    expect(callsNamed(r, "list_characters")).toHaveLength(1);
    await expect.poll(() => r.frame.getByTestId("expand-error").textContent()).toContain("refused list_locations");
    await r.page.close();
  });

  it("Expand follows nextCursor: every character and location, not the first page", { timeout: 90_000 }, async () => {
    const f = await fixture();
    const worldId = worldOf(await f.call("create_world", { name: "Manyfold", theme: "fantasy" })).id;
    // Long traits and names make a page of 50 outgrow structuredContent's 10 KB: the server cuts it and gives a cursor.
    for (let i = 0; i < 30; i++) await f.call("create_character", { worldId, name: `Person ${String(i).padStart(2, "0")}`, traits: Array.from({ length: 12 }, (_, k) => `${"trait".repeat(11)} ${k}`), backstory: "B".repeat(400) });
    for (let i = 0; i < 30; i++) await f.call("create_location", { worldId, name: `Place ${String(i).padStart(2, "0")} ${"L".repeat(110)}`, kind: "K".repeat(100), description: "D".repeat(400) });
    // The pages as the server gives them, followed by hand.
    const pages = async (tool: string) => {
      const cursors: (string | undefined)[] = [];
      let cursor: string | undefined;
      do {
        cursors.push(cursor);
        cursor = ((await f.call(tool, { worldId, limit: 50, ...(cursor ? { cursor } : {}) })).structuredContent as { nextCursor?: string }).nextCursor;
      } while (cursor);
      return cursors;
    };
    const characterPages = await pages("list_characters");
    const locationPages = await pages("list_locations");
    expect(characterPages.length).toBeGreaterThan(1);
    expect(locationPages.length).toBeGreaterThan(1);

    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: await f.call("get_world", { worldId }) });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Manyfold");
    await m.frame.getByRole("button", { name: "Expand" }).click();
    const graph = m.frame.getByTestId("relations-graph");
    await expect.poll(() => graph.locator("g.node").count(), { timeout: 20_000 }).toBe(24);
    expect(await m.frame.getByTestId("characters").locator("li").count()).toBe(30);
    expect(await m.frame.getByTestId("locations").locator("li").count()).toBe(30);
    // One call per page, each with the cursor the page before it gave.
    expect(callsNamed(m, "list_characters").map((c) => c.args.cursor)).toEqual(characterPages);
    expect(callsNamed(m, "list_locations").map((c) => c.args.cursor)).toEqual(locationPages);
    expect(callsNamed(m, "get_character")).toHaveLength(24);
    await m.page.close();
  });

  it("the frame shrinks again when the delete confirmation is cancelled", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Shrinkwell");
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown });
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe("Shrinkwell");
    const frameHeight = () => m.page.locator("#host iframe").evaluate((frame) => frame.getBoundingClientRect().height);
    const contentHeight = () => m.document().evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    // The frame is sized to the content (the card is shorter than the emulators' 640 px limit).
    await expect.poll(async () => (await frameHeight()) === (await contentHeight())).toBe(true);
    const inline = await frameHeight();
    await m.frame.getByRole("button", { name: "Delete world" }).click();
    await expect.poll(frameHeight).toBeGreaterThan(inline);
    await m.frame.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(frameHeight).toBe(inline);
    await m.page.close();
  });

  it("saving in the editor makes one update_character call and reads the character once", async () => {
    const f = await fixture();
    const { worldId, shown } = await populatedWorld(f, "Onceby");
    const m = await mount(host, f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: shown });
    await expect.poll(() => m.frame.getByTestId("characters").textContent()).toContain("Bram Weald");
    await m.frame.getByRole("button", { name: "Edit Bram Weald" }).click();
    const editor = host === "chatgpt" ? m.page.frameLocator("[data-testid=host-modal] iframe") : m.frame;
    await expect.poll(() => editor.locator("#edit-role").inputValue(), { timeout: 10_000 }).toBe("gamekeeper");
    await editor.locator("#edit-role").fill("warden");
    await editor.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => m.frame.getByTestId("characters").textContent(), { timeout: 10_000 }).toContain("Bram Weald · warden");
    await exportRoundTrip(m);
    expect(callsNamed(m, "update_character")).toHaveLength(1);
    expect(callsNamed(m, "get_character")).toHaveLength(1);
    await m.page.close();
  });
});

describe("ChatGPT widget state", () => {
  it("a character added in the card is counted once when a later result counts it without listing it", async () => {
    const f = await fixture();
    const worldId = worldOf(await f.call("create_world", { name: "Sixfold", theme: "fantasy" })).id;
    for (let i = 0; i < 6; i++) await f.call("create_character", { worldId, name: `P${i}` });
    const m = await mount("chatgpt", f, { html: await f.widgetHtml("get_world"), toolName: "get_world", toolInput: { worldId }, toolResult: await f.call("get_world", { worldId }) });
    await expect.poll(() => m.frame.getByTestId("counts").textContent()).toContain("6 characters ·");
    await m.frame.locator("#new-name").fill("Zed");
    await m.frame.getByRole("button", { name: "Add character" }).click();
    await expect.poll(() => m.frame.getByTestId("status").textContent(), { timeout: 10_000 }).toContain("Zed joined Sixfold");
    expect(await m.frame.getByTestId("counts").textContent()).toContain("7 characters ·");

    // A later result counts Zed but lists only the first five characters.
    const later = await f.call("get_world", { worldId });
    const listed = ((later._meta as Json)["worldcrafter/world"] as { characters: { name: string }[] }).characters.map((c) => c.name);
    expect(listed).not.toContain("Zed");
    expect(((later.structuredContent as { world: { counts: { characters: number } } }).world.counts.characters)).toBe(7);
    // ChatGPT hands the same widget (and its state) newer globals with an openai:set_globals event.
    await m.document().evaluate((result) => {
      const globals = { toolOutput: result.structuredContent, toolResponseMetadata: result._meta };
      Object.assign(window.openai!, globals);
      window.dispatchEvent(new CustomEvent("openai:set_globals", { detail: { globals } }));
    }, later as { structuredContent: Json; _meta: Json });
    await expect.poll(() => m.frame.getByTestId("characters").locator("li").count()).toBe(6);
    expect(await m.frame.getByTestId("counts").textContent()).toContain("7 characters ·");
    expect((await m.frame.getByTestId("characters").locator("li").allTextContents()).filter((r) => r.includes("Zed"))).toHaveLength(1);
    await m.page.close();
  });
});
