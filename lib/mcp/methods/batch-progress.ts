import type { AuthInfo } from "../../auth/auth-info";
import type { JsonRpcId } from "../../jsonrpc";
import type { CallChannel, CallScope, RequestMeta } from "../runtime/handler-context";

/**
 * One progress stream for a tools/batch. Its calls run in parallel under the request's one
 * progressToken, each counting from its own start, so their reports interleaved read 1, 1, 2, 2…
 * where basic/utilities/progress says progress MUST increase with each notification (outside
 * probe, 2026-11-29). The batch reports instead the sum of its calls' latest progress, with the sum
 * of their totals once every call has given one, and only when that sum grew.
 */
export class BatchProgress {
  private readonly latest: (number | undefined)[];
  private readonly totals: (number | undefined)[];
  private sent = -Infinity;

  constructor(
    private readonly channel: CallChannel,
    size: number,
  ) {
    this.latest = new Array<number | undefined>(size).fill(undefined);
    this.totals = new Array<number | undefined>(size).fill(undefined);
  }

  /** The scope call `index` of the batch runs in: the batch's own, its progress summed here. */
  scopeFor(parent: CallScope, index: number): CallScope {
    const batch = this;
    const channel: CallChannel = {
      notify: (method, params) => (method === "notifications/progress" ? batch.report(index, params) : batch.channel.notify(method, params)),
      request: (method, params, signal, key) => batch.channel.request(method, params, signal, key),
      missingCapability: (required, method) => batch.channel.missingCapability(required, method),
      cannotAsk: (method) => batch.channel.cannotAsk(method),
      closeStream: (retryMs) => batch.channel.closeStream(retryMs),
    };
    return new BatchCallScope(parent, channel);
  }

  private report(index: number, params: Record<string, unknown>): Promise<void> {
    const { progress, total } = params;
    if (typeof progress === "number") this.latest[index] = Math.max(this.latest[index] ?? progress, progress);
    if (typeof total === "number") this.totals[index] = total;
    const sum = this.latest.reduce<number>((all, value) => all + (value ?? 0), 0);
    if (!(sum > this.sent)) return Promise.resolve();
    this.sent = sum;
    const { total: _own, ...rest } = params;
    const known = this.totals.every((value) => value !== undefined);
    const totals = known ? this.totals.reduce<number>((all, value) => all + (value ?? 0), 0) : undefined;
    return this.channel.notify("notifications/progress", { ...rest, progress: sum, ...(totals === undefined ? {} : { total: totals }) });
  }
}

/** A batch call's scope: the request's own in everything but its channel (read through, as the request's scope is lazy). */
class BatchCallScope implements CallScope {
  constructor(
    private readonly parent: CallScope,
    readonly channel: CallChannel,
  ) {}

  get requestId(): JsonRpcId {
    return this.parent.requestId;
  }
  get signal(): AbortSignal {
    return this.parent.signal;
  }
  get aborted(): boolean {
    return this.parent.aborted;
  }
  get onProgress(): CallScope["onProgress"] {
    return this.parent.onProgress;
  }
  get protocolVersion(): string {
    return this.parent.protocolVersion;
  }
  get sessionId(): string | undefined {
    return this.parent.sessionId;
  }
  get auth(): AuthInfo | undefined {
    return this.parent.auth;
  }
  get clientAddress(): string {
    return this.parent.clientAddress;
  }
  get meta(): RequestMeta {
    return this.parent.meta;
  }
  get clientCapabilities(): Record<string, unknown> | undefined {
    return this.parent.clientCapabilities;
  }
  get logThreshold(): CallScope["logThreshold"] {
    return this.parent.logThreshold;
  }
  get continueAsTask(): CallScope["continueAsTask"] {
    return this.parent.continueAsTask;
  }
}
