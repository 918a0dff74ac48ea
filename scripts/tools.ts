/**
 * npm run tools -- enable <tool> | disable <tool> | list
 *
 * Switches a tool on or off for every running instance of the deployment: the switch is kept in
 * the shared store (REDIS_URL or UPSTASH_REDIS_REST_URL/TOKEN) and announced on the cluster bus;
 * each instance updates its registry and tells its clients (notifications/tools/list_changed).
 */
import { loadEnv } from "../lib/config/env";
import { clusterOf } from "../lib/cluster/create-cluster";
import { switchTool } from "../lib/mcp/cluster/tool-switchboard";
import { WORLDCRAFTER_NAMESPACE, worldcrafterServer } from "../lib/worlds/server-definition";

async function main(): Promise<void> {
  const [command, tool] = process.argv.slice(2);
  const cluster = clusterOf(loadEnv(), WORLDCRAFTER_NAMESPACE);
  const known = (worldcrafterServer.contents.tools ?? []).map((t) => t.name);
  if (command === "list") {
    const off = (await cluster.switches?.disabled()) ?? [];
    for (const name of known) console.log(`${off.includes(name) ? "off" : "on "}  ${name}`);
    return;
  }
  if ((command !== "enable" && command !== "disable") || !tool) throw new Error("usage: npm run tools -- enable <tool> | disable <tool> | list");
  const off = await switchTool(cluster, known, tool, command === "enable");
  // Give the bus a moment to deliver before the process exits.
  await new Promise((r) => setTimeout(r, 200));
  console.log(`${tool} ${command}d; switched off now: ${off.length ? off.join(", ") : "none"}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
