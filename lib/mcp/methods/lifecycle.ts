import { z } from "zod";
import { hasIcons, negotiateVersion } from "../protocol/protocol-versions";
import { withoutIcons } from "../protocol/icons";
import { SERVER_CAPABILITIES, serverCapabilities } from "../protocol/server-info";
import { LOGGING_LEVELS } from "../protocol/types";
import { parseOrInvalidParams } from "../runtime/validate";
import { LOCALE_META_KEY, lookupLocale } from "../policy/locale";
import type { MethodEnv, MethodHandler } from "./method-env";
import { LEGACY_TASKS_CAPABILITY, LEGACY_TASKS_VERSION } from "../tasks/wire";

export const InitializeParams = z.looseObject({
  protocolVersion: z.string().min(1).max(64),
  capabilities: z.record(z.string(), z.unknown()),
  clientInfo: z.looseObject({ name: z.string().max(256), version: z.string().max(256) }),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

export interface Negotiated {
  protocolVersion: string;
  clientInfo: { name: string; version: string };
  clientCapabilities: Record<string, unknown>;
  result: Record<string, unknown>;
}

/**
 * initialize's capabilities. Extensions (SEP-1724) are announced here too: MCP Apps negotiates in
 * initialize (ext-apps §capability negotiation). 2025-11-25 adds its experimental tasks
 * (basic/utilities/tasks) when the server runs tasks.
 */
function capabilitiesFor(env: MethodEnv, protocolVersion: string): Record<string, unknown> {
  const base: Record<string, unknown> = env.extensions ? serverCapabilities(env.extensions) : SERVER_CAPABILITIES;
  return env.tasks && protocolVersion === LEGACY_TASKS_VERSION ? { ...base, tasks: LEGACY_TASKS_CAPABILITY } : base;
}

/** lifecycle §initialization: negotiate the version and describe the server. */
export function initialize(env: MethodEnv, params: Record<string, unknown>): Negotiated {
  const p = parseOrInvalidParams(InitializeParams, params);
  const protocolVersion = negotiateVersion(p.protocolVersion);
  // Seed 000 §initialize: a client that names its locale learns the one the server will write in.
  const meta = p._meta as Record<string, unknown> | undefined;
  const requestedLocale = meta?.[LOCALE_META_KEY];
  return {
    protocolVersion,
    clientInfo: { name: p.clientInfo.name, version: p.clientInfo.version },
    clientCapabilities: p.capabilities,
    result: {
      protocolVersion,
      capabilities: capabilitiesFor(env, protocolVersion),
      serverInfo: hasIcons(protocolVersion) ? env.info : withoutIcons(env.info),
      ...(env.instructions ? { instructions: env.instructions } : {}),
      ...(requestedLocale !== undefined && env.locales ? { _meta: { [LOCALE_META_KEY]: lookupLocale(requestedLocale, env.locales) } } : {}),
    },
  };
}

export const ping: MethodHandler = () => ({});

const SetLevelParams = z.looseObject({ level: z.enum(LOGGING_LEVELS) });

export const setLogLevel: MethodHandler = async (_env, { params, session }) => {
  const { level } = parseOrInvalidParams(SetLevelParams, params);
  await session?.setLogLevel(level);
  return {};
};
