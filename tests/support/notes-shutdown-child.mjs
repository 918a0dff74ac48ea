// A process that builds the notes example's endpoint as its route does (notesEndpoint()), opens a
// subscriptions/listen on it, then is sent SIGTERM: it prints "ended" once the stream has ended,
// which is what lets `next start` exit (tests/unit/notes-example.test.ts).
import { createJiti } from "jiti";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const jiti = createJiti(import.meta.url, { alias: { "@": root.replace(/\/$/, "") } });
const { notesEndpoint } = await jiti.import(`${root}examples/notes/endpoint.ts`);
const [token] = process.argv.slice(2);

const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const response = await notesEndpoint().handle(
  new Request("https://app.example/api/notes", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}`, "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: meta } }),
  }),
);
if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
  console.log(`no stream: ${response.status} ${await response.text()}`);
  process.exit(1);
}
const reader = response.body.getReader();
await reader.read(); // the stream is open
setTimeout(() => process.kill(process.pid, "SIGTERM"), 50);
const cutoff = setTimeout(() => {
  console.log("still open");
  process.exit(1);
}, 5_000);
while (!(await reader.read()).done);
clearTimeout(cutoff);
console.log("ended");
process.exit(0);
