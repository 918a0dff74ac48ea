import { ALL_SUPPORTED_VERSIONS } from "../protocol/protocol-versions";
import { SERVER_CAPABILITIES } from "../protocol/server-info";
import type { MethodHandler } from "./method-env";
import { TASKS_EXTENSION } from "../tasks/wire";

/**
 * server/discover (2026-07-28): what the server speaks and offers, with no handshake. serverInfo
 * travels in the result's `_meta` (added at the era's edge with every other result).
 */
export const discover: MethodHandler = (env) => ({
  supportedVersions: ALL_SUPPORTED_VERSIONS,
  capabilities: { ...SERVER_CAPABILITIES, extensions: env.tasks ? { [TASKS_EXTENSION]: {} } : {} },
  ...(env.instructions ? { instructions: env.instructions } : {}),
});
