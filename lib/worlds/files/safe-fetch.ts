import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isLoopbackAddress, isNonPublicAddress } from "../../config/address-range";

/**
 * Fetches a file a user handed in by URL (import_world's `file.download_url`) without letting the
 * URL reach anything it should not (SSRF):
 * - https only; http solely to loopback and solely behind the test switch (`allowLoopback`);
 * - every hop's host resolved once, every address it resolves to checked against the non-public
 *   ranges (lib/config/address-range.ts), and the connection made to the address that was checked
 *   (a custom `lookup`), so a DNS answer that changes between check and connect (rebinding) has
 *   nothing to change;
 * - redirects followed by hand, at most `maxRedirects`, each hop checked as the first;
 * - the whole fetch within `timeoutMs`; the body read up to `maxBytes` and no further;
 * - only text-like media types (and octet-stream, which hosts use for uploads); the body must be UTF-8.
 * Every refusal is a FileFetchRefused whose message says what was wrong, for the model and user.
 */

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
  allowLoopback: boolean;
  maxRedirects?: number;
}

export interface FetchedFile {
  text: string;
  /** The media type the server named (lower case, no parameters), when it named one. */
  mediaType: string | undefined;
  /** The last path segment of the final URL, a hint of the file's format. */
  fileName: string | undefined;
}

export class FileFetchRefused extends Error {
  override name = "FileFetchRefused";
  /** `message` is shown to the caller; `detail` (what was resolved, and how) is for the server log only. */
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

/**
 * The one refusal for a host that is not on the public internet, whatever the reason (no such
 * name, a private address): what a name resolves to inside this network is not the caller's to learn.
 */
export const NOT_PUBLIC_HOST = "the file's host is not a public internet address; only public https URLs can be fetched";

export const ACCEPTED_MEDIA_TYPES = ["text/markdown", "text/x-markdown", "text/plain", "application/json", "application/octet-stream"] as const;

const DEFAULT_REDIRECTS = 3;

/** Whether a fetch may connect to `address`. */
function allowedAddress(address: string, allowLoopback: boolean): boolean {
  return !isNonPublicAddress(address) || (allowLoopback && isLoopbackAddress(address));
}

/**
 * Resolve `hostname` once and check every address; the connection then uses only these. Refusing
 * when any address is non-public (rather than picking a public one) leaves a mixed answer no way in.
 */
function resolveChecked(hostname: string, allowLoopback: boolean, signal: AbortSignal): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    // The time limit covers resolution too: a resolver that never answers must not hold the call.
    const onAbort = () => reject(new FileFetchRefused("fetching the file took too long"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      signal.removeEventListener("abort", onAbort);
      if (error || addresses.length === 0) return reject(new FileFetchRefused(NOT_PUBLIC_HOST, `${hostname} could not be resolved`));
      const refused = addresses.find((a) => !allowedAddress(a.address, allowLoopback));
      if (refused) return reject(new FileFetchRefused(NOT_PUBLIC_HOST, `${hostname} resolves to the non-public address ${refused.address}`));
      resolve(addresses);
    });
  });
}

/**
 * A `lookup` for http(s).request that answers with the addresses already checked, never asking
 * DNS again: all of them when the socket tries several (Happy Eyeballs), else the first.
 */
function pinnedLookup(pinned: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as (e: null, a: LookupAddress[]) => void)(null, pinned);
    else (callback as (e: null, a: string, f: number) => void)(null, (pinned[0] as LookupAddress).address, (pinned[0] as LookupAddress).family);
  };
}

/**
 * Why a connection failed, in words: never the system's error code, which would say more about
 * the network than a user needs (and an ECONNREFUSED would read as the database's failure to
 * lib/worlds/tools/database-errors.ts).
 */
function unreachable(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code ?? "";
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code)) return "the file's server has no valid TLS certificate";
  return "the file's server could not be reached";
}

function mediaTypeOf(header: string | undefined): string | undefined {
  const type = header?.split(";")[0]?.trim().toLowerCase();
  return type ? type : undefined;
}

interface Hop {
  response: IncomingMessage;
  url: URL;
}

async function openHop(url: URL, limits: FetchLimits, signal: AbortSignal): Promise<Hop> {
  if (url.protocol !== "https:" && !(url.protocol === "http:" && limits.allowLoopback)) {
    throw new FileFetchRefused(`only https URLs can be fetched (got ${url.protocol.replace(/:$/, "")})`);
  }
  if (url.username || url.password) throw new FileFetchRefused("a file URL may not carry a user name or password");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let pinned: LookupAddress[];
  if (isIP(host)) {
    if (!allowedAddress(host, limits.allowLoopback)) throw new FileFetchRefused(NOT_PUBLIC_HOST, `${host} is a non-public address`);
    pinned = [{ address: host, family: isIP(host) }];
  } else {
    pinned = await resolveChecked(host, limits.allowLoopback, signal);
  }
  if (url.protocol === "http:" && !pinned.every((a) => isLoopbackAddress(a.address))) {
    throw new FileFetchRefused("only https URLs can be fetched (plain http is allowed to loopback in tests only)");
  }
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Hop>((resolve, reject) => {
    const req = request(
      url,
      {
        method: "GET",
        lookup: pinnedLookup(pinned),
        signal,
        headers: { accept: "text/markdown, application/json, text/plain;q=0.9, */*;q=0.1", "user-agent": "WorldCrafter-import/1" },
      },
      (response) => resolve({ response, url }),
    );
    req.on("error", (error) => reject(new FileFetchRefused(signal.aborted ? "fetching the file took too long" : unreachable(error))));
    req.end();
  });
}

async function readBody(response: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw new FileFetchRefused(`the file is too large (${declared} bytes; at most ${maxBytes})`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response) {
      const buffer = chunk as Buffer;
      total += buffer.length;
      if (total > maxBytes) {
        response.destroy();
        throw new FileFetchRefused(`the file is too large (more than ${maxBytes} bytes)`);
      }
      chunks.push(buffer);
    }
  } catch (thrown) {
    if (thrown instanceof FileFetchRefused) throw thrown;
    throw new FileFetchRefused(signal.aborted ? "fetching the file took too long" : "the file's download was cut off");
  }
  return Buffer.concat(chunks);
}

function lastSegment(url: URL): string | undefined {
  const segment = url.pathname.split("/").pop() ?? "";
  try {
    return decodeURIComponent(segment) || undefined;
  } catch {
    return segment || undefined;
  }
}

/**
 * The time limit is a timer this call holds and clears, not AbortSignal.timeout(): that signal's
 * timer dies with the signal once nothing refers to it, so it could not be what stops a transfer.
 */
export async function fetchFile(raw: string, limits: FetchLimits, outer?: AbortSignal): Promise<FetchedFile> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), limits.timeoutMs);
  try {
    return await fetchWithin(raw, limits, outer ? AbortSignal.any([deadline.signal, outer]) : deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The body of a redirect or an error answer is never read: the connection is closed at once. Reading
 * it to its end (`resume()`) had no byte limit, and a server that sends one without end kept this
 * process downloading after the call had returned (outside audit, HIGH).
 */
async function fetchWithin(raw: string, limits: FetchLimits, signal: AbortSignal): Promise<FetchedFile> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FileFetchRefused("the file URL is not a valid URL");
  }
  const maxRedirects = limits.maxRedirects ?? DEFAULT_REDIRECTS;
  for (let redirects = 0; ; redirects++) {
    const { response } = await openHop(url, limits, signal);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.destroy();
      if (redirects >= maxRedirects) throw new FileFetchRefused(`the file URL redirects more than ${maxRedirects} times`);
      try {
        url = new URL(response.headers.location, url);
      } catch {
        throw new FileFetchRefused("the file URL redirects to an invalid URL");
      }
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw new FileFetchRefused(`the file URL answered HTTP ${status}`);
    }
    const mediaType = mediaTypeOf(response.headers["content-type"]);
    if (mediaType !== undefined && !(ACCEPTED_MEDIA_TYPES as readonly string[]).includes(mediaType)) {
      response.destroy();
      throw new FileFetchRefused(`the file's type ${mediaType} is not a world file (expected Markdown or JSON: ${ACCEPTED_MEDIA_TYPES.join(", ")})`);
    }
    const body = await readBody(response, limits.maxBytes, signal);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(body);
    } catch {
      throw new FileFetchRefused("the file is not UTF-8 text");
    }
    return { text, mediaType, fileName: lastSegment(url) };
  }
}
