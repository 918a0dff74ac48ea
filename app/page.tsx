import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { loadEnv } from "@/lib/config/env";
import { resourceUrlForRequest } from "@/lib/auth/auth-settings";
import { worldcrafterResource } from "@/lib/worlds/resource";
import { LATEST_SESSION_ERA_VERSION } from "@/lib/mcp/protocol/protocol-versions";
import type { SecurityScheme } from "@/lib/mcp";
import { serverCatalog, type CatalogTool, type ServerCatalog } from "@/lib/worlds/catalog";
import { builtinAuthServer, worldcrafterResourceServer } from "@/lib/worlds/authorization";
import { AuthPage } from "@/lib/authorization-server/paths";
import styles from "./page.module.css";

export const metadata: Metadata = {
  title: "WorldCrafter MCP",
  description: "A remote MCP server for building fictional worlds: its tools, resources and prompts, and how to connect",
};

let catalog: ServerCatalog | undefined;

/** Compiled once per process, as the endpoint compiles its registry (no database, no endpoint). */
function liveCatalog(disabledTools: readonly string[]): ServerCatalog {
  catalog ??= serverCatalog(undefined, { disabledTools });
  return catalog;
}

function AuthLabel({ security }: { security: readonly SecurityScheme[] }) {
  const parts = security.map((scheme) =>
    scheme.type === "noauth" ? (
      <span key="noauth">no sign-in (noauth)</span>
    ) : (
      <span key={`oauth2:${(scheme.scopes ?? []).join(" ")}`}>
        OAuth 2{scheme.scopes && scheme.scopes.length > 0 ? ": " : ""}
        {(scheme.scopes ?? []).map((scope, i) => (
          <span key={scope}>
            {i > 0 ? ", " : ""}
            <code>{scope}</code>
          </span>
        ))}
      </span>
    ),
  );
  if (parts.length === 0) return <>no sign-in (noauth)</>;
  return (
    <>
      {parts.map((part, i) => (
        <span key={i}>
          {i > 0 ? " or " : ""}
          {part}
        </span>
      ))}
    </>
  );
}

/** Class names joined, skipping any the stylesheet does not define. */
function cx(...names: (string | undefined)[]): string {
  return names.filter(Boolean).join(" ");
}

function effect(tool: CatalogTool): { label: string; className: string | undefined } {
  if (tool.readOnly) return { label: "read-only", className: styles.readOnly };
  if (tool.destructive) return { label: "destructive", className: styles.destructive };
  return { label: "writes", className: styles.writes };
}

function ToolItem({ tool }: { tool: CatalogTool }) {
  const { label, className } = effect(tool);
  return (
    <li className={styles.tool}>
      <h3 id={`tool-${tool.name}`}>
        <code>{tool.name}</code>
        {tool.title ? <span className={styles.toolTitle}> — {tool.title}</span> : null}
      </h3>
      {tool.description ? <p>{tool.description}</p> : null}
      <dl className={styles.facts}>
        <dt>Effect</dt>
        <dd>
          <span className={cx(styles.badge, className)}>{label}</span>
          {tool.idempotent ? <span className={styles.badge}>idempotent</span> : null}
        </dd>
        <dt>Auth</dt>
        <dd>
          <AuthLabel security={tool.security} />
        </dd>
        <dt>Widget</dt>
        <dd>{tool.widget ? <code>{tool.widget}</code> : "none"}</dd>
        {tool.appOnly ? (
          <>
            <dt>Visibility</dt>
            <dd>called by its widget only (hidden from the model)</dd>
          </>
        ) : null}
      </dl>
    </li>
  );
}

/**
 * Whether a caller without a token is served at all: MCP_AUTH_MODE=mixed lets one list everything
 * and call the open tools; under `required` (production's default) every request needs a token,
 * so the page must not say otherwise (docs/authorization.md, the refusals table).
 */
function anonymousCallersServed(): boolean {
  return worldcrafterResourceServer().settings.mode === "mixed";
}

/** Who signs people in, from the live configuration, and what the deployment still lacks. */
function SignInStatus({ anonymous }: { anonymous: boolean }) {
  const state = builtinAuthServer();
  if (state.kind === "unavailable") {
    return (
      <div className={styles.problem} role="alert" data-testid="auth-problems">
        <p>
          <strong>Signing in does not work yet.</strong> Set what is missing and redeploy{anonymous ? "; the open tools work meanwhile" : ""}:
        </p>
        <ul>
          {state.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      </div>
    );
  }
  if (state.kind === "external") return <p data-testid="auth-status">Accounts come from this deployment&apos;s authorization server (<code>MCP_AUTH_ISSUER</code>).</p>;
  const { github, google, oidc, signUp } = state.server.settings;
  const ways = ["e-mail and password", github ? "GitHub" : undefined, google ? "Google" : undefined, oidc ? oidc.name : undefined].filter(Boolean).join(", ");
  return (
    <p data-testid="auth-status">
      This server is its own OAuth authorization server: when an app asks, you <a href={AuthPage.SignIn}>sign in</a>
      {signUp.open ? " or create an account" : " (new accounts are closed)"} with {ways}, and allow it access to your worlds.
    </p>
  );
}

/** The header line a curl example carries when every request needs a token. */
const BEARER_LINE = '  -H "Authorization: Bearer $TOKEN" \\';

function curlInitialize(url: string, bearer: boolean): string {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: LATEST_SESSION_ERA_VERSION, capabilities: {}, clientInfo: { name: "curl", version: "1.0" } },
  });
  return [
    `curl -i ${url} \\`,
    ...(bearer ? [BEARER_LINE] : []),
    "  -H 'Content-Type: application/json' \\",
    "  -H 'Accept: application/json, text/event-stream' \\",
    `  -H 'MCP-Protocol-Version: ${LATEST_SESSION_ERA_VERSION}' \\`,
    `  -d '${body}'`,
  ].join("\n");
}

function curlToolsList(url: string, bearer: boolean): string {
  return [
    `curl -s ${url} \\`,
    ...(bearer ? [BEARER_LINE] : []),
    "  -H 'Content-Type: application/json' \\",
    "  -H 'Accept: application/json, text/event-stream' \\",
    `  -H 'MCP-Protocol-Version: ${LATEST_SESSION_ERA_VERSION}' \\`,
    "  -H \"Mcp-Session-Id: $SID\" \\",
    `  -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'`,
  ].join("\n");
}

export default async function Home() {
  const env = loadEnv();
  const endpoint = resourceUrlForRequest(worldcrafterResource(env), env, await headers()).url;
  const { title, name, version, description, tools, resources, resourceTemplates, prompts } = liveCatalog(env.MCP_DISABLED_TOOLS);
  const anonymous = anonymousCallersServed();

  return (
    <main className={styles.page}>
      {/* The page follows the reader's light or dark preference; hoisted into <head> by React. */}
      <style href="worldcrafter-color-scheme" precedence="default">{":root{color-scheme:light dark}"}</style>
      <header>
        <h1>{`${title ?? name} MCP`}</h1>
        {description ? <p className={styles.lead}>{description}.</p> : null}
        <p>
          A remote MCP server (Streamable HTTP, JSON-RPC 2.0), version <code>{version}</code>. Endpoint:
        </p>
        <p className={styles.endpoint}>
          <code data-testid="endpoint-url">{endpoint}</code>
        </p>
        <nav aria-label="On this page">
          <ul className={styles.toc}>
            <li>
              <a href="#connect">Connect</a>
            </li>
            <li>
              <a href="#tools">Tools ({tools.length})</a>
            </li>
            <li>
              <a href="#resources">Resources ({resources.length + resourceTemplates.length})</a>
            </li>
            <li>
              <a href="#prompts">Prompts ({prompts.length})</a>
            </li>
            <li>
              <Link href="/preview">Widget preview</Link>
            </li>
          </ul>
        </nav>
      </header>

      <section aria-labelledby="connect">
        <h2 id="connect">Connect</h2>
        <SignInStatus anonymous={anonymous} />
        {anonymous ? null : (
          <p data-testid="token-required">
            Every request to this server needs an account: an app connects only once you have signed in and allowed it.
          </p>
        )}

        <h3 id="connect-chatgpt">ChatGPT</h3>
        <ol>
          <li>
            <strong>Settings → Apps &amp; Connectors → Advanced settings</strong>: turn on <strong>Developer mode</strong>.
          </li>
          <li>
            Back in <strong>Apps &amp; Connectors</strong>, <strong>Create</strong> a connector: give it a name and the MCP server URL{" "}
            <code>{endpoint}</code>.
          </li>
          <li>
            Authentication: <strong>OAuth</strong>. ChatGPT registers itself and asks you to sign in{" "}
            {anonymous ? "when a tool needs your account" : "before it can use any tool"}.
          </li>
          <li>In a chat, pick the connector from the developer-mode tools menu.</li>
        </ol>

        <h3 id="connect-claude">Claude</h3>
        <ol>
          <li>
            <strong>Settings → Connectors → Add custom connector</strong>.
          </li>
          <li>
            Name it and paste the URL <code>{endpoint}</code>, then <strong>Add</strong>.
          </li>
          <li>
            <strong>Connect</strong> to sign in (OAuth){anonymous ? "; the open tools work without an account" : ": every tool needs your account here"}.
          </li>
        </ol>

        <h3 id="connect-inspector">MCP Inspector</h3>
        <pre className={styles.code}>
          <code>npx @modelcontextprotocol/inspector</code>
        </pre>
        {anonymous ? (
          <p>
            In the Inspector choose transport <strong>Streamable HTTP</strong>, URL <code>{endpoint}</code>, and connect. For the tools
            that need an account, open <strong>Authentication → OAuth</strong> and connect again: you sign in here and the Inspector gets a token.
          </p>
        ) : (
          <p>
            In the Inspector choose transport <strong>Streamable HTTP</strong>, URL <code>{endpoint}</code>, open{" "}
            <strong>Authentication → OAuth</strong>, and connect: you sign in here and the Inspector gets the token every request needs.
          </p>
        )}

        <h3 id="connect-curl">curl</h3>
        <p>
          {anonymous ? null : (
            <>
              Every request needs a bearer token (<code>$TOKEN</code>): an access token this server issued, such as the one the Inspector shows after
              its OAuth flow.{" "}
            </>
          )}
          <code>initialize</code> answers with the session id in the <code>Mcp-Session-Id</code> header:
        </p>
        <pre className={styles.code}>
          <code>{curlInitialize(endpoint, !anonymous)}</code>
        </pre>
        <p>
          After <code>notifications/initialized</code>, later requests carry that session id (as <code>$SID</code>):
        </p>
        <pre className={styles.code}>
          <code>{curlToolsList(endpoint, !anonymous)}</code>
        </pre>
      </section>

      <section aria-labelledby="tools">
        <h2 id="tools">Tools</h2>
        <p>
          Exactly what <code>tools/list</code> returns. Tools marked OAuth 2 need a token with those scopes;{" "}
          {anonymous ? "the others anyone may call." : "here the others need a token too (any scope), as every request does."}
        </p>
        <ul className={styles.tools}>
          {tools.map((tool) => (
            <ToolItem key={tool.name} tool={tool} />
          ))}
        </ul>
        <p>
          See the widgets rendered with sample data on the <Link href="/preview">widget preview</Link> page.
        </p>
      </section>

      <section aria-labelledby="resources">
        <h2 id="resources">Resources</h2>
        <ResourceTable caption="Resources" uriHeading="URI" empty="No resources." rows={resources.map((r) => ({ ...r, address: r.uri }))} />

        <h3 id="resource-templates">Resource templates</h3>
        <ResourceTable caption="Resource templates" uriHeading="URI template" empty="No resource templates." rows={resourceTemplates.map((t) => ({ ...t, address: t.uriTemplate }))} />
      </section>

      <section aria-labelledby="prompts">
        <h2 id="prompts">Prompts</h2>
        {prompts.length > 0 ? (
          <ul className={styles.tools}>
            {prompts.map((p) => (
              <li key={p.name} className={styles.tool}>
                <h3 id={`prompt-${p.name}`}>
                  <code>{p.name}</code>
                  {p.title ? <span className={styles.toolTitle}> — {p.title}</span> : null}
                </h3>
                {p.description ? <p>{p.description}</p> : null}
                {p.arguments.length > 0 ? (
                  <>
                    <h4>Arguments</h4>
                    <ul>
                      {p.arguments.map((a) => (
                        <li key={a.name}>
                          <code>{a.name}</code> {a.required ? <strong>(required)</strong> : <span className={styles.muted}>(optional)</span>}
                          {a.description ? <> — {a.description}</> : null}
                        </li>
                      ))}
                    </ul>
                  </>
                ) : (
                  <p className={styles.muted}>No arguments.</p>
                )}
              </li>
            ))}
          </ul>
        ) : (
          <p>No prompts.</p>
        )}
      </section>
    </main>
  );
}

interface ResourceRow {
  /** The URI, or the URI template. */
  address: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** Resources and resource templates share one table shape. */
function ResourceTable({ caption, uriHeading, rows, empty }: { caption: string; uriHeading: string; rows: ResourceRow[]; empty: string }) {
  if (rows.length === 0) return <p>{empty}</p>;
  return (
    <table className={styles.table}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{uriHeading}</th>
          <th scope="col">Name</th>
          <th scope="col">Type</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.address}>
            <td>
              <code>{r.address}</code>
            </td>
            <td>
              {r.title ?? r.name}
              {r.description ? <div className={styles.muted}>{r.description}</div> : null}
            </td>
            <td>{r.mimeType ? <code>{r.mimeType}</code> : "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
