import type { RateLimitCall } from "../mcp/policy/rate-limit";

/**
 * Which budgets a request spends (seed 001 §rate limiting): tools/list, tools/call and initialize
 * have their own, and so do the tasks methods (a client polling its running tasks at the interval
 * they ask for must not run out: SEP-2663 §polling); everything else shares one — every other
 * method, notifications, client responses, GET and DELETE — and a tool may have a budget of its
 * own on top of tools/call's.
 * Budgets count per caller over a sliding window.
 */
export interface Budget {
  /** Also the counter's key prefix: stable across instances and deployments. */
  name: string;
  limit: number;
  windowMs: number;
}

export interface BudgetConfig {
  windowMs: number;
  toolsList: number;
  toolsCall: number;
  initialize: number;
  /** tasks/get, tasks/update, tasks/cancel, tasks/result, tasks/list. */
  tasks: number;
  other: number;
  /** Per tool, on top of tools/call. */
  perTool: Readonly<Record<string, number>>;
}

export function budgetsOf(config: BudgetConfig): (call: RateLimitCall) => Budget[] {
  const make = (name: string, limit: number): Budget => ({ name, limit, windowMs: config.windowMs });
  const list = make("tools-list", config.toolsList);
  const call = make("tools-call", config.toolsCall);
  const other = make("other", config.other);
  const initialize = make("initialize", config.initialize);
  const tasks = make("tasks", config.tasks);
  const perTool = new Map(Object.entries(config.perTool).map(([tool, limit]) => [tool, make(`tool:${tool}`, limit)]));
  return ({ method, tool }) => {
    if (method === "tools/list") return [list];
    if (method === "initialize") return [initialize];
    if (method.startsWith("tasks/")) return [tasks];
    if (method === "tools/call") {
      const own = tool ? perTool.get(tool) : undefined;
      // The narrower budget first: a request it refuses never touches the wider one.
      return own ? [own, call] : [call];
    }
    // tools/batch included: the request spends this budget even when it fails before its calls are
    // admitted (an empty or invalid batch), and each call it carries then spends tools/call's budget
    // as if it came alone (the transport's admitter).
    return [other];
  };
}

/** `export_world=10,create_world=30` → { export_world: 10, create_world: 30 } (validated by env.ts). */
export function parseToolBudgets(spec: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of spec) {
    const match = /^([A-Za-z0-9_.-]{1,128})=(\d{1,6})$/.exec(entry);
    if (!match) throw new Error(`MCP_RATE_LIMIT_TOOLS: "${entry}" is not tool=limit`);
    out[match[1] as string] = Number(match[2]);
  }
  return out;
}
