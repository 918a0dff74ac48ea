import type { Icon } from "./types";

/** What the server says about itself in initialize (lifecycle) and, later, server/discover. */
export interface ServerIdentity {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

/** Capabilities this core implements (lifecycle §capability negotiation). */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
} as const;

/** Extensions a server supports (SEP-1724): identifier → settings; `{}` is support with none. */
export type ServerExtensions = Readonly<Record<string, Record<string, unknown>>>;

/** The capabilities initialize and server/discover announce: the core's, and the app's extensions. */
export function serverCapabilities(extensions: ServerExtensions | undefined): Record<string, unknown> {
  return { ...SERVER_CAPABILITIES, extensions: { ...extensions } };
}
