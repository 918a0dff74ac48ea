import { ALL_SUPPORTED_VERSIONS } from "../protocol/protocol-versions";
import { serverCapabilities } from "../protocol/server-info";
import type { MethodHandler } from "./method-env";
import { TASKS_EXTENSION } from "../tasks/wire";

/**
 * server/discover (2026-07-28): what the server speaks and offers, with no handshake. serverInfo
 * travels in the result's `_meta` (added at the era's edge with every other result).
 */
export const discover: MethodHandler = (env) => ({
  supportedVersions: ALL_SUPPORTED_VERSIONS,
  // The tasks extension (SEP-2663) is a 2026-07-28 surface: announced here, not in initialize.
  capabilities: serverCapabilities(env.tasks ? { ...env.extensions, [TASKS_EXTENSION]: {} } : env.extensions),
  ...(env.instructions ? { instructions: env.instructions } : {}),
});
