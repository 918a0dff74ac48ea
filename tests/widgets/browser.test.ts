/**
 * The widgets in a real headless Chromium (Debian's `chromium`, driven by playwright-core), inside
 * the two emulated hosts of widgets/hosts — one plays ChatGPT (`window.openai` and its
 * set_globals events), the other an MCP Apps host (ext-apps' AppBridge over postMessage) — on the
 * real server: the widget HTML comes from resources/read, the tool results from tools/call, and
 * every call a widget makes goes through its host to the server with the official SDK client.
 *
 * For each widget and host: the widget shows the tool output; a button calls a tool through the
 * host and the result appears (and is in the database); what the widget saved survives the host
 * rendering it again; hostile world names are shown as text. One screenshot per widget per host
 * goes to .ci-results/screenshots (CI keeps .ci-results).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chromium, type Browser, type Frame, type FrameLocator, type Page } from "playwright-core";
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
  call(name: string, args: Json): Promise<Json>;
  widgetHtml(tool: string): Promise<string>;
}

/** A signed-in SDK client of its own subject (closed when the test ends). */
async function fixture(): Promise<Fixture> {
  const token = await tokenFor(server(), newSubject("widgets"));
  // The emulated hosts render widgets: the client declares MCP Apps, so results carry the widget-only _meta.
  const { client } = await connectClient(`${server()}/api/mcp`, { token, capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } });
  const tools = (await client.listTools()).tools;
  const call = async (name: string, args: Json) => (await client.callTool({ name, arguments: args })) as Json;
  return {
    client,
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
  dialogs: string[];
  screenshot(name: string): Promise<void>;
}

/** Opens the emulators' page on the server's origin and mounts one widget in one host. */
async function mount(host: HostKind, f: Fixture, options: { html: string; toolName: string; toolInput: Json; toolResult: Json }): Promise<Mounted> {
  const page = await browser.newPage({ viewport: { width: 720, height: 900 } });
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.exposeFunction("__callTool", (name: string, args: Json) => f.call(name, args));
  await page.goto(`${server()}/preview?bare`);
  await page.evaluate(
    async ({ host, options }) => {
      const w = window as unknown as {
        WorldCrafterHosts: Record<string, (c: HTMLElement, o: unknown) => unknown>;
        __callTool: (n: string, a: unknown) => Promise<unknown>;
        __host: { reload(): Promise<void> };
      };
      const container = document.createElement("div");
      container.id = "host";
      document.body.replaceChildren(container);
      const mountHost = host === "chatgpt" ? w.WorldCrafterHosts.mountChatGptHost : w.WorldCrafterHosts.mountMcpAppsHost;
      w.__host = (await mountHost!(container, { ...options, callTool: (n: string, a: unknown) => w.__callTool(n, a) })) as { reload(): Promise<void> };
    },
    { host, options },
  );
  const frame = page.frameLocator("#host iframe");
  return {
    page,
    frame,
    document: () => {
      const child = page.frames().find((fr) => fr !== page.mainFrame());
      if (!child) throw new Error("no widget frame");
      return child;
    },
    reload: () => page.evaluate(() => (window as unknown as { __host: { reload(): Promise<void> } }).__host.reload()),
    dialogs,
    screenshot: async (name) => {
      await page.locator("#host iframe").screenshot({ path: join(SCREENSHOTS, `${name}-${host}.png`) });
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
    expect(await m.frame.getByTestId("counts").textContent()).toContain("1 characters");

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

    await m.reload();
    await expect.poll(() => m.frame.locator("h1").textContent()).toBe(bram.name);
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

    await m.reload();
    await expect.poll(() => m.frame.getByTestId("worlds").locator("li").count()).toBe(3);
    expect(await m.frame.getByTestId("open-world").locator("h2").textContent()).toBe("Amberlight");
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

describe("the /preview page", () => {
  it("renders every widget with sample data in both emulated hosts, and the theme switch reaches each", async () => {
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
    expect(dialogs).toEqual([]);
    await page.close();
  });
});
