import { clientAddressOf, peerAddressOf, type ClientAddressPolicy } from "./client-address";

/**
 * What a host may hand over with a Request besides the Request itself (lib/http/node-adapter.ts
 * gives all four). The first three let the host skip a web-stream or signal step that, on Node 20,
 * costs more than the core's own work for a small call; the fourth is a fact no Request carries.
 * Next hands over nothing: its requests carry their body, their signal, and it reads answers as
 * web Responses (under npm start the client address arrives through lib/http/trusted-host.mjs).
 */
export interface HandleInit {
  /**
   * The request body as text, when the host has read it already (an Express body parser set to
   * text, the node adapter). The Request's own body is then not read. The size limit still applies.
   * Decode strictly (utf8Text in lib/http/read-body.ts): bytes that are not UTF-8 go in the
   * Request's body instead, and the core refuses them (-32700).
   */
  body?: string;
  /**
   * Aborts when the client goes away; used instead of `request.signal`. A Request built to follow
   * a signal costs about as much again as one built without.
   */
  signal?: AbortSignal;
  /**
   * The host writes every JSON answer from `wholeBodyOf(response)` (lib/http/whole-body.ts), so
   * those Responses are built without a body stream of their own (`response.body` is null).
   */
  wholeBodies?: boolean;
  /** The socket's remote address, which a Request does not carry (lib/http/client-address.ts). */
  clientAddress?: string;
}

/**
 * The facts the transport works with, defaults taken from the Request, so each is decided here
 * once: which body to parse, which signal says the client went away, how JSON answers are built.
 */
export interface RequestHost {
  /** The body the host already read, or undefined: read the Request's own. */
  readonly body: string | undefined;
  /** Aborts when the client goes away: the host's signal, else the Request's. */
  readonly clientGone: AbortSignal;
  /** JSON answers are built without a body stream (the host writes `wholeBodyOf()`). */
  readonly wholeBodies: boolean;
  /** The client's address from trusted sources only (lib/http/client-address.ts), read on first use. */
  readonly clientAddress: string;
}

/**
 * The init a host really gave, checked field by field: frameworks also call a route's exports
 * with arguments of their own (Next passes `{ params }`), and those must mean nothing here.
 */
export function requestHostOf(request: Request, init: unknown, addresses: ClientAddressPolicy): RequestHost {
  const given: Record<string, unknown> = typeof init === "object" && init !== null ? (init as Record<string, unknown>) : {};
  return new HostFacts(request, given, addresses);
}

/**
 * A class, not an object literal with a getter: V8 builds such a literal in dictionary mode, and
 * each one kept what its getter closes over (the Request and all it reaches) alive through the
 * next scavenge, which promoted it all (bench/PROFILING.md, round 9).
 */
class HostFacts implements RequestHost {
  readonly body: string | undefined;
  readonly clientGone: AbortSignal;
  readonly wholeBodies: boolean;
  private address: string | undefined;

  constructor(
    private readonly request: Request,
    private readonly given: Record<string, unknown>,
    private readonly addresses: ClientAddressPolicy,
  ) {
    this.body = typeof given.body === "string" ? given.body : undefined;
    this.clientGone = given.signal instanceof AbortSignal ? given.signal : request.signal;
    this.wholeBodies = given.wholeBodies === true;
  }

  // Only rate limits need it: most requests of a deployment without limits never pay for it.
  get clientAddress(): string {
    this.address ??= clientAddressOf(this.request, peerAddressOf(this.request.headers, typeof this.given.clientAddress === "string" ? this.given.clientAddress : undefined), this.addresses);
    return this.address;
  }
}
