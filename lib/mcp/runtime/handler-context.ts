import type { AuthInfo } from "../../auth/auth-info";
import type { JsonRpcId } from "../../jsonrpc";
import { ProtocolError } from "../protocol/protocol-error";
import type { ZodType } from "zod";
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitParams,
  type ElicitResult,
  type ListRootsResult,
  type ServerRequestMethod,
} from "./client-requests";
import type { ElicitationMode, RequiredCapability } from "../protocol/client-capabilities";
import { questionAt, refusalToAsk } from "./may-ask";
import { elicitAnswerCheck } from "./elicit-answer";
import { loggingLevelRank, type LoggingLevel, type Meta } from "../protocol/types";
import { LOCALE_META_KEY, lookupLocale, type LocalePolicy } from "../policy/locale";
import { readClientHints, type ClientHints } from "../policy/client-hints";

export type ProgressToken = string | number;

/** The request's `_meta` (basic/index §_meta); `progressToken` per basic/utilities/progress. */
export interface RequestMeta extends Meta {
  progressToken?: ProgressToken;
}

/**
 * What the transport provides to one call: a way to send notifications related to it and to ask
 * the client something. The era decides how (an SSE stream in 2025; input-required rounds in
 * 2026-07-28) — handlers never see the difference.
 */
export interface CallChannel {
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /**
   * Ask the client something. `key` names the question where the era needs names (2026-07-28
   * `inputRequests`); one is made up when the handler gives none.
   */
  request(method: ServerRequestMethod, params: Record<string, unknown>, signal: AbortSignal, key: string | undefined): Promise<unknown>;
  /** The error for a question the client cannot answer (capability or elicitation mode not declared). */
  missingCapability(required: RequiredCapability, method: ServerRequestMethod): Error;
  /**
   * Why this call cannot carry a question to the client now, in the era's terms (before the
   * client's notifications/initialized; an answer that cannot be an SSE stream), or undefined
   * when it can. Asked by the one gate (may-ask.ts) before anything is sent.
   */
  cannotAsk(method: ServerRequestMethod): Error | undefined;
  /** Ask the transport to end the response stream early; the client resumes it (SSE polling). */
  closeStream(retryMs?: number): void;
}

/** Everything the dispatcher knows about one incoming request. */
export interface CallScope {
  requestId: JsonRpcId;
  signal: AbortSignal;
  /** Whether the call was cancelled, without creating the (lazy) signal. */
  readonly aborted: boolean;
  /** Told of every progress report, with or without a progressToken (the GET stream's tool-progress). */
  onProgress?: (progress: number, total: number | undefined) => void;
  protocolVersion: string;
  sessionId: string | undefined;
  auth: AuthInfo | undefined;
  /** The client's address from trusted sources (lib/http/client-address.ts): an anonymous caller's identity. */
  clientAddress: string;
  meta: RequestMeta;
  clientCapabilities: Record<string, unknown> | undefined;
  /**
   * Minimum level of notifications/message for this call: the session's logging/setLevel (2025),
   * the request's `_meta` logLevel (2026-07-28), "none" when logs must not be sent at all, or
   * "unset" for a 2025 session that never chose a level (every level passes but `askedOnly`).
   */
  logThreshold: LoggingLevel | "none" | "unset";
  channel: CallChannel;
  /** Present when the call may become a durable task (lib/mcp/tasks/call-as-task.ts). */
  continueAsTask?: () => Promise<void>;
}

/** The context an app handler receives as its second argument. Call its methods on it (`ctx.progress(…)`): they are not bound. */
export interface HandlerContext {
  readonly signal: AbortSignal;
  readonly requestId: JsonRpcId;
  readonly sessionId: string | undefined;
  readonly auth: AuthInfo | undefined;
  readonly meta: RequestMeta;
  readonly protocolVersion: string;
  /** What the client declared it can do (elicitation, sampling, roots, …). */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /**
   * The extensions the client declared (`capabilities.extensions`: in initialize for the 2025
   * revisions, in each request's `_meta` in 2026-07-28), by identifier, with their settings.
   */
  readonly clientExtensions: Readonly<Record<string, unknown>>;
  /**
   * The locale to write human text in: the request's `_meta["openai/locale"]` looked up (RFC
   * 4647) among the server's supported locales; the fallback when it names none of them.
   */
  readonly locale: string;
  /** Advisory host hints (user agent, coarse location); never use them for authorization. */
  readonly clientHints: ClientHints;
  /** Report progress; a no-op when the caller sent no progressToken (basic/utilities/progress). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Send notifications/message if the level passes the client's logging/setLevel. `askedOnly`
   * messages go only to a client that chose a level: sending one streams the answer (SSE), which
   * a client that never asked for logs need not get for them.
   */
  log(level: LoggingLevel, data: unknown, logger?: string, options?: { askedOnly?: boolean }): Promise<void>;
  /** Send any notification related to this call. */
  sendNotification(method: string, params: Record<string, unknown>): Promise<void>;
  /**
   * Ask the user through the client. In 2026-07-28 the call may end here with an
   * InputRequiredResult and run again, from the top, once the client retries with the answer:
   * keep side effects after the questions, or make them idempotent. `key` names the question.
   */
  elicit(params: ElicitParams, options?: AskOptions): Promise<ElicitResult>;
  sample(params: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult>;
  listRoots(options?: AskOptions): Promise<ListRootsResult>;
  /**
   * Whether `elicit()`/`sample()`/`listRoots()` may ask the client now (for elicitation, in
   * `mode`, form by default): the revision has the request, the client declared the capability
   * and mode, and this call can carry a question (after notifications/initialized; an answer
   * that can stream). When it cannot, asking fails at once: take the tool's fallback instead.
   */
  canAsk(method: ServerRequestMethod, mode?: ElicitationMode): boolean;
  /** End the SSE response early so the client polls for the rest (2025-11-25 transports). */
  closeStream(retryMs?: number): void;
  /**
   * For a tool whose `execution.taskStarts` is "when_handler_asks": from here on the call runs
   * as a durable task when the client negotiated tasks (the request is answered with a
   * CreateTaskResult; questions asked before this were input rounds of the request). Otherwise,
   * and for every other tool, it resolves at once and changes nothing.
   */
  continueAsTask(): Promise<void>;
  /**
   * Say that these resources changed (call it after the write is done): subscribed 2025 sessions
   * and 2026-07-28 listen streams of the same caller, on every instance, get
   * notifications/resources/updated (server/resources §subscriptions).
   */
  resourcesUpdated(uris: readonly string[]): void;
}

/** Publishes one resource change to the streams of its owner (the endpoint's notification hub). */
export type ResourceUpdatePublisher = (uri: string, owner: string | null) => void;

export interface AskOptions {
  /** A stable name for the question (2026-07-28 `inputRequests` key). */
  key?: string;
}

async function ask<T>(scope: CallScope, method: ServerRequestMethod, params: object, schema: ZodType<T>, options?: AskOptions): Promise<T> {
  // Nothing is sent that the client could not answer (may-ask.ts names the rules).
  const refused = refusalToAsk(scope, method, params);
  if (refused) throw refused;
  const answer = await scope.channel.request(method, questionAt(scope.protocolVersion, method, params), scope.signal, options?.key);
  const parsed = schema.safeParse(answer);
  if (!parsed.success) throw new ProtocolError(-32602, `The client's answer to ${method} is malformed`);
  return parsed.data;
}

/** When a server declares no locales, everything is written in English. */
const ENGLISH_ONLY: LocalePolicy = { supported: ["en"], fallback: "en" };

export function createHandlerContext(scope: CallScope, locales: LocalePolicy = ENGLISH_ONLY, publish?: ResourceUpdatePublisher): HandlerContext {
  return new CallHandlerContext(scope, locales, publish);
}

/**
 * A class with its getters and methods on the prototype. An object literal with getters (which V8
 * builds in dictionary mode), and a class whose constructor makes a closure per method, both
 * kept what those close over (the call's scope and answer) alive through the next scavenge,
 * which promoted it all (bench/PROFILING.md, round 9). Handlers call these as methods
 * (`ctx.progress(…)`).
 */
class CallHandlerContext implements HandlerContext {
  readonly requestId: JsonRpcId;
  readonly sessionId: string | undefined;
  readonly auth: AuthInfo | undefined;
  readonly meta: RequestMeta;
  readonly protocolVersion: string;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  private hints: ClientHints | undefined;

  constructor(
    private readonly scope: CallScope,
    private readonly locales: LocalePolicy,
    private readonly publish: ResourceUpdatePublisher | undefined,
  ) {
    this.requestId = scope.requestId;
    this.sessionId = scope.sessionId;
    this.auth = scope.auth;
    this.meta = scope.meta;
    this.protocolVersion = scope.protocolVersion;
    this.clientCapabilities = scope.clientCapabilities ?? {};
  }

  // A getter: the AbortSignal is created only if the handler looks at it.
  get signal(): AbortSignal {
    return this.scope.signal;
  }

  get clientExtensions(): Readonly<Record<string, unknown>> {
    const extensions = this.scope.clientCapabilities?.extensions;
    return typeof extensions === "object" && extensions !== null && !Array.isArray(extensions) ? (extensions as Record<string, unknown>) : {};
  }

  // Getters: most handlers never look, so the lookups cost nothing on the hot path.
  get locale(): string {
    return lookupLocale(this.scope.meta[LOCALE_META_KEY], this.locales);
  }

  get clientHints(): ClientHints {
    this.hints ??= readClientHints(this.scope.meta);
    return this.hints;
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const scope = this.scope;
    scope.onProgress?.(progress, total);
    const token = scope.meta.progressToken;
    if (token === undefined) return;
    await scope.channel.notify("notifications/progress", {
      progressToken: token,
      progress,
      ...(total === undefined ? {} : { total }),
      ...(message === undefined ? {} : { message }),
    });
  }

  async log(level: LoggingLevel, data: unknown, logger?: string, options?: { askedOnly?: boolean }): Promise<void> {
    const threshold = this.scope.logThreshold;
    if (threshold === "none" || (threshold === "unset" && options?.askedOnly)) return;
    if (threshold !== "unset" && loggingLevelRank(level) < loggingLevelRank(threshold)) return;
    await this.scope.channel.notify("notifications/message", { level, data, ...(logger ? { logger } : {}) });
  }

  sendNotification(method: string, params: Record<string, unknown>): Promise<void> {
    return this.scope.channel.notify(method, params);
  }

  async elicit(params: ElicitParams, options?: AskOptions): Promise<ElicitResult> {
    // Made before anything is sent: a form that cannot be checked fails now (elicit-answer.ts).
    const check = elicitAnswerCheck(params);
    return check(await ask(this.scope, "elicitation/create", params, ElicitResultSchema, options));
  }

  sample(params: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult> {
    return ask(this.scope, "sampling/createMessage", params, CreateMessageResultSchema, options);
  }

  listRoots(options?: AskOptions): Promise<ListRootsResult> {
    return ask(this.scope, "roots/list", {}, ListRootsResultSchema, options);
  }

  canAsk(method: ServerRequestMethod, mode: ElicitationMode = "form"): boolean {
    return refusalToAsk(this.scope, method, { mode }) === undefined;
  }

  closeStream(retryMs?: number): void {
    this.scope.channel.closeStream(retryMs);
  }

  continueAsTask(): Promise<void> {
    return this.scope.continueAsTask?.() ?? Promise.resolve();
  }

  resourcesUpdated(uris: readonly string[]): void {
    if (!this.publish) return;
    // The caller's own resources: only its streams hear of them (server-event.ts, mayHear).
    for (const uri of new Set(uris)) this.publish(uri, this.scope.auth?.subject ?? null);
  }
}
