import type {
  McpUiAppCapabilities,
  McpUiHostContext,
  McpUiInitializeRequest,
  McpUiInitializeResult,
  McpUiMessageRequest,
  McpUiOpenLinkRequest,
  McpUiRequestDisplayModeRequest,
  McpUiSizeChangedNotification,
} from "@modelcontextprotocol/ext-apps";
import { isJson, type Json } from "./host";

/**
 * The app side of MCP Apps (SEP-1865, ext-apps protocol 2026-01-26) over postMessage: JSON-RPC 2.0
 * with the host window. Why not ext-apps' own `App`: it extends the MCP SDK v2 `Protocol` and
 * validates every message with zod, which alone weighs 62 KB gzipped — over the 60 KB budget of a
 * whole widget (issue 24 item 9; measured with every bundler trick in docs/widgets.md). The
 * message shapes are ext-apps' own types (imported as types, so nothing of it is bundled), and the
 * browser tests run this client against ext-apps' official host side, AppBridge.
 */

/** ext-apps' LATEST_PROTOCOL_VERSION (2.0.4). */
export const MCP_APPS_PROTOCOL_VERSION = "2026-01-26";
/** A host that never answers must not hang a button forever. */
const REQUEST_TIMEOUT_MS = 60_000;

type NotificationHandler = (params: Json) => void;
type RequestHandler = (params: Json) => Promise<Json> | Json;

interface Pending {
  resolve(result: Json): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export class McpAppsClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly notifications = new Map<string, NotificationHandler>();
  private readonly requests = new Map<string, RequestHandler>();
  hostContext: McpUiHostContext = {};
  hostCapabilities: McpUiInitializeResult["hostCapabilities"] = {};

  constructor(private readonly host: Window) {
    window.addEventListener("message", (event) => {
      // Only the host frame speaks to us; anything else (another frame, an extension) is ignored.
      if (event.source !== this.host || !isJson(event.data) || event.data.jsonrpc !== "2.0") return;
      this.receive(event.data);
    });
  }

  onNotification(method: string, handler: NotificationHandler): void {
    this.notifications.set(method, handler);
  }

  onRequest(method: string, handler: RequestHandler): void {
    this.requests.set(method, handler);
  }

  /** ui/initialize, then ui/notifications/initialized (SEP-1865 §lifecycle). */
  async connect(appInfo: { name: string; version: string }, appCapabilities: McpUiAppCapabilities): Promise<void> {
    const params: McpUiInitializeRequest["params"] = { appInfo, appCapabilities, protocolVersion: MCP_APPS_PROTOCOL_VERSION };
    const result = (await this.request("ui/initialize", params)) as Partial<McpUiInitializeResult>;
    this.hostContext = isJson(result.hostContext) ? result.hostContext : {};
    this.hostCapabilities = isJson(result.hostCapabilities) ? result.hostCapabilities : {};
    this.notify("ui/notifications/initialized", {});
  }

  callTool(name: string, args: Json): Promise<Json> {
    return this.request("tools/call", { name, arguments: args });
  }

  openLink(url: string): Promise<Json> {
    const params: McpUiOpenLinkRequest["params"] = { url };
    return this.request("ui/open-link", params);
  }

  sendMessage(text: string): Promise<Json> {
    const params: McpUiMessageRequest["params"] = { role: "user", content: [{ type: "text", text }] };
    return this.request("ui/message", params);
  }

  requestDisplayMode(mode: McpUiRequestDisplayModeRequest["params"]["mode"]): Promise<Json> {
    const params: McpUiRequestDisplayModeRequest["params"] = { mode };
    return this.request("ui/request-display-mode", params);
  }

  /** The app asks the host to close it (ext-apps `App.requestTeardown`). */
  requestTeardown(): void {
    this.notify("ui/notifications/request-teardown", {});
  }

  sizeChanged(params: McpUiSizeChangedNotification["params"]): void {
    this.notify("ui/notifications/size-changed", params);
  }

  request(method: string, params: unknown): Promise<Json> {
    const id = this.nextId++;
    return new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: the host did not answer`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.post({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.post({ jsonrpc: "2.0", method, params });
  }

  private post(message: Json): void {
    this.host.postMessage(message, "*");
  }

  private receive(message: Json): void {
    const { id, method } = message;
    if (typeof method !== "string") {
      // A response to one of ours.
      const pending = typeof id === "number" ? this.pending.get(id) : undefined;
      if (!pending) return;
      this.pending.delete(id as number);
      clearTimeout(pending.timer);
      if (isJson(message.error)) pending.reject(new Error(typeof message.error.message === "string" ? message.error.message : "The host refused the request"));
      else pending.resolve(isJson(message.result) ? message.result : {});
      return;
    }
    const params = isJson(message.params) ? message.params : {};
    if (id === undefined || id === null) {
      this.notifications.get(method)?.(params);
      return;
    }
    const handler = method === "ping" ? () => ({}) : this.requests.get(method);
    if (!handler) {
      this.post({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } });
      return;
    }
    Promise.resolve()
      .then(() => handler(params))
      .then(
        (result) => this.post({ jsonrpc: "2.0", id, result }),
        (error: unknown) => this.post({ jsonrpc: "2.0", id, error: { code: -32603, message: error instanceof Error ? error.message : String(error) } }),
      );
  }
}
