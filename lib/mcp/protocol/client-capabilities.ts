import { hasElicitation, hasElicitationModes } from "./protocol-versions";

/**
 * The server → client requests (client/elicitation, client/sampling, client/roots): which client
 * capability each needs, which revisions have it, and what a client's declaration allows. The
 * runtime's one gate (runtime/may-ask.ts) asks these before anything is sent.
 */

/** Which client capability each server → client request needs (lifecycle §capabilities). */
export const REQUIRED_CLIENT_CAPABILITY = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
} as const;
export type ServerRequestMethod = keyof typeof REQUIRED_CLIENT_CAPABILITY;

/** client/elicitation (2025-11-25) §elicitation modes. */
export type ElicitationMode = "form" | "url";

/** What one question needs the client to have declared: the capability and, for elicitation, the mode. */
export interface RequiredCapability {
  name: (typeof REQUIRED_CLIENT_CAPABILITY)[ServerRequestMethod];
  mode: ElicitationMode | undefined;
}

/** The elicitation mode a request's params ask for: absent means form (client/elicitation §elicitation requests). */
export function elicitationModeOf(params: object): ElicitationMode {
  return (params as { mode?: unknown }).mode === "url" ? "url" : "form";
}

export function requiredCapability(method: ServerRequestMethod, params: object): RequiredCapability {
  const name = REQUIRED_CLIENT_CAPABILITY[method];
  return { name, mode: name === "elicitation" ? elicitationModeOf(params) : undefined };
}

/**
 * Whether the negotiated revision has this request at all: elicitation since 2025-06-18, URL mode
 * since 2025-11-25; sampling and roots since 2024-11-05, so in every revision we speak.
 */
export function revisionHas(version: string, required: RequiredCapability): boolean {
  if (required.name !== "elicitation") return true;
  return required.mode === "url" ? hasElicitationModes(version) : hasElicitation(version);
}

/**
 * Whether the client declared what the question needs. client/elicitation (2025-11-25)
 * §capabilities: `elicitation: {}` means form only, `{form: {}}`, `{url: {}}` or both name the
 * modes, and servers MUST NOT send a mode the client does not support. Before 2025-11-25 the
 * capability has no modes: a declared one allows forms.
 */
export function declares(capabilities: Readonly<Record<string, unknown>> | undefined, version: string, required: RequiredCapability): boolean {
  // A capability is an object (lifecycle §capability negotiation): `false` or `null`, as some
  // serializers write an absent field, declares nothing (outside audit: both were asked). A mode
  // written so is not offered either, yet names the modes: `{form: false}` asks no form.
  const declared = capabilities?.[required.name];
  if (!isObject(declared)) return false;
  if (required.mode === undefined) return true;
  const named = hasElicitationModes(version) && (declared.form !== undefined || declared.url !== undefined);
  return named ? isObject(declared[required.mode]) : required.mode === "form";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The capability as a human reads it in an error message: `"elicitation" capability (url mode)`. */
export function describeCapability(required: RequiredCapability): string {
  return `"${required.name}" capability${required.mode ? ` (${required.mode} mode)` : ""}`;
}

/**
 * The capability as `data.requiredCapabilities` names it (basic/index, -32021). Form mode is
 * `elicitation: {}`, which client/elicitation §capabilities defines as form only; URL mode is
 * `elicitation: { url: {} }`.
 */
export function requiredCapabilitiesOf(required: RequiredCapability): Record<string, Record<string, object>> {
  return { [required.name]: required.mode === "url" ? { url: {} } : {} };
}
