import { ErrorCode } from "../../../jsonrpc";
import type { ServerRequestMethod } from "../../runtime/client-requests";
import { InputRequired, ProtocolError } from "../../protocol/protocol-error";
import { REQUIRED_CLIENT_CAPABILITY, describeCapability, requiredCapabilitiesOf, type RequiredCapability } from "../../protocol/client-capabilities";
import type { ClientAsker } from "../post-exchange";

/**
 * One run of a handler in the 2026-07-28 era (basic/patterns/mrtr). Questions whose answers the
 * client sent (this round, or earlier rounds via requestState) are answered at once; the others
 * are collected, and once the handler has asked everything it can ask in one go (after the
 * current macrotask) every pending question rejects with one InputRequired carrying them all.
 */
export class InputRound implements ClientAsker {
  /** Answers this run actually used: carried forward into the next requestState. */
  readonly used: Record<string, unknown> = {};
  readonly missing: Record<string, { method: string; params: Record<string, unknown> }> = {};
  private readonly waiting: ((error: InputRequired) => void)[] = [];
  private counter = 0;
  private flushScheduled = false;

  constructor(private readonly answers: Readonly<Record<string, unknown>>) {}

  get needsInput(): boolean {
    return Object.keys(this.missing).length > 0;
  }

  request(method: ServerRequestMethod, params: Record<string, unknown>, _signal: AbortSignal, key: string | undefined): Promise<unknown> {
    const name = key ?? `${REQUIRED_CLIENT_CAPABILITY[method]}_${++this.counter}`;
    if (Object.hasOwn(this.answers, name)) {
      this.used[name] = this.answers[name];
      return Promise.resolve(this.answers[name]);
    }
    // The schema's InputRequests values are bare {method, params}: no jsonrpc, no id.
    this.missing[name] = { method, params };
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return new Promise((_resolve, reject) => this.waiting.push(reject));
  }

  missingCapability(required: RequiredCapability, method: ServerRequestMethod): Error {
    // basic/index: a request that needs an undeclared capability fails with -32021 (HTTP 400).
    return new ProtocolError(
      ErrorCode.MissingRequiredClientCapability,
      `Missing required client capability: ${describeCapability(required)} (needed for ${method})`,
      { requiredCapabilities: requiredCapabilitiesOf(required) },
    );
  }

  /** Every 2026-07-28 request that may pause for input can carry questions (basic/patterns/mrtr). */
  cannotAsk(): undefined {
    return undefined;
  }

  private flush(): void {
    const signal = new InputRequired({ ...this.missing });
    for (const reject of this.waiting.splice(0)) reject(signal);
  }
}
