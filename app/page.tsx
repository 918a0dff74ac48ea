export default function Home() {
  return (
    <main>
      <h1>WorldCrafter MCP</h1>
      <p>
        The MCP endpoint is <code>/api/mcp</code> (Streamable HTTP, JSON-RPC 2.0). Point ChatGPT, Claude or MCP Inspector at it.
      </p>
    </main>
  );
}
