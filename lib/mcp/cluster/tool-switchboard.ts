import type { ToolDefinition } from "../registry";
import type { Registry } from "../registry";
import type { Cluster } from "./cluster";
import { logUnexpected } from "../runtime/request-log";

/**
 * Tools switched on and off while the server runs (for example a tool held back until it is
 * ready): the registry gains or loses them, which announces notifications/tools/list_changed
 * on this instance's GET and listen streams (server/tools §list changed notification). The
 * switches live in the cluster, so every instance follows them; `npm run tools` flips one.
 */
export class ToolSwitchboard {
  private readonly all: Map<string, ToolDefinition>;

  constructor(
    private readonly registry: Registry,
    tools: readonly ToolDefinition[],
    private readonly cluster: Cluster,
    private readonly disabledAtStart: readonly string[],
  ) {
    this.all = new Map(tools.map((t) => [t.name, t]));
    this.apply(new Set(disabledAtStart));
    const switches = cluster.switches;
    if (!switches) return;
    const refresh = () =>
      switches.disabled().then(
        (off) => this.apply(new Set([...disabledAtStart, ...off])),
        (thrown: unknown) => logUnexpected("tool switches", thrown),
      );
    void refresh();
    cluster.bus.subscribe((message) => {
      if (message.kind === "tools_switched") void refresh();
    });
  }

  private apply(off: ReadonlySet<string>): void {
    for (const [name, definition] of this.all) {
      const present = this.registry.getTool(name) !== undefined;
      if (off.has(name) && present) this.registry.removeTool(name);
      else if (!off.has(name) && !present) this.registry.addTool(definition);
    }
  }
}

/** Switch `tool` on or off for every running instance (npm run tools); they follow over the bus. */
export async function switchTool(cluster: Cluster, known: readonly string[], tool: string, enabled: boolean): Promise<string[]> {
  if (!known.includes(tool)) throw new Error(`no tool named ${tool}; known: ${known.join(", ")}`);
  const switches = cluster.switches;
  if (!switches) throw new Error("tools switch at run time only with a shared store: set REDIS_URL or UPSTASH_REDIS_REST_URL/TOKEN (else use MCP_DISABLED_TOOLS and restart)");
  await switches.set(tool, enabled);
  cluster.bus.publish({ kind: "tools_switched" });
  return switches.disabled();
}
