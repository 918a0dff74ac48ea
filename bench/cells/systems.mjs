/**
 * The rows the bench measures ("systems"), their checks, and BENCH_SYSTEMS's selection.
 *
 * The systems under test. HTTP systems build their body per request (fresh JSON-RPC id) and check
 * the answer; unless an era says otherwise they carry their server's session headers, so the
 * ceiling and the MCP rows differ only in the route, not in the request the server parses.
 * Direct systems (prisma:…) are a query name for the database's db-worker.
 */
import { REDIS_LIMITER } from "./limiter-cell.mjs";
import {
  CEILING_BODY,
  CEILING_BODY_TWIN,
  CEILING_LIMITER_PATH,
  CEILING_PAGE,
  CEILING_PAGE_PATH,
  CEILING_PATH,
  CEILING_STATEMENT_PATH,
  COLD_START,
  CONFIG,
  directRowName,
  limiterRowName,
  MCP_PATH,
  PROTOCOL_VERSION,
  STATEMENT_WORLD_HEADER,
  statementRowName,
} from "../config.mjs";
import { checkWorld, checkWorldPage, LIST_ARGS, TARGET_WORLD_ID } from "../seed-data.mjs";
import { SECONDARY_NODE } from "../runtime.mjs";
import { DATABASES, LIMITERS } from "../servers/catalog.mjs";
import { ACCEPT, ERAS, rpc, SESSIONLESS_2025 } from "./client.mjs";

export const toolCall = (name, args) => ({ name, arguments: args });

/**
 * Checks take the answer's JSON-RPC response (for an SSE answer, the one carrying the result) and
 * { notifications, headers, id }, and return true when it is right.
 */
export const hasResult = (json) => json !== null && typeof json === "object" && json.result !== null && typeof json.result === "object";
export const isToolList = (j) => hasResult(j) && Array.isArray(j.result.tools);
/** A tools/call answer that is not an error and whose structuredContent passes `check` (undefined = right). */
export const isToolResult = (check = () => undefined) => (j) => hasResult(j) && j.result.isError !== true && check(j.result.structuredContent ?? {}) === undefined;

/**
 * An MCP request in one era, named `<label><era>[/<db>]`. `auth`: sent with a token of the bench
 * (and, in 2025-11-25, in the session opened with it) — the data tools need one: true or "reader"
 * = the owner of the seeded worlds, "writer" = the subject create_world writes as.
 */
export function mcpSystem(era, label, method, params, check, db, auth = db !== undefined) {
  return { name: `${label}${era.suffix}${db ? `/${db}` : ""}`, db, auth, method, path: MCP_PATH, body: era.body(method, params), headers: era.headers(method, params?.name), check };
}

/** initialize (2025-11-25 only): a new session per request, on its own twin server. */
export const INITIALIZE = {
  ...mcpSystem(ERAS[0], "initialize", "initialize", { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } }, (j, a) => hasResult(j) && j.result.protocolVersion === PROTOCOL_VERSION && typeof a.headers["mcp-session-id"] === "string"),
  // No session header: initialize is what opens one.
  headers: { accept: ACCEPT },
  server: "initialize",
};

/** server/discover: 2026-07-28's counterpart of initialize, with no session to open. */
export const DISCOVER = mcpSystem(ERAS[1], "server/discover", "server/discover", {}, (j) => hasResult(j) && Array.isArray(j.result.supportedVersions));

/** create_world: a write on PostgreSQL, as `writer`. */
export const CREATE_ARGS = { name: "Bench Written World", theme: "steampunk", tone: "even" };
export const createWorld = (era) =>
  mcpSystem(era, "create_world", "tools/call", toolCall("create_world", CREATE_ARGS), isToolResult((s) => (typeof s.world?.id === "string" && s.world.name === CREATE_ARGS.name ? undefined : "no world")), "pg", "writer");

/**
 * draft_world_outline with a progress token (the request's id): an SSE answer of 10 progress
 * notifications, then the result. Built per request, as the token is the id.
 */
export const DRAFT_ARGS = { name: "Bench Outline", theme: "fantasy", style: "elvish" };
export const DRAFT_SECTIONS = 10;
export function isDraftStream(j, { notifications, id }) {
  const progress = notifications.filter((n) => n.method === "notifications/progress" && n.params?.progressToken === id);
  if (progress.length !== DRAFT_SECTIONS || progress.some((n, i) => n.params.progress !== i + 1 || n.params.total !== DRAFT_SECTIONS)) return false;
  return isToolResult((s) => (s.sections?.length === DRAFT_SECTIONS ? undefined : "sections"))(j);
}
export const draftStream = (era) => {
  const system = mcpSystem(era, "draft_world_outline+progress", "tools/call", toolCall("draft_world_outline", DRAFT_ARGS), isDraftStream);
  return { ...system, body: (id) => era.body("tools/call", { ...toolCall("draft_world_outline", DRAFT_ARGS), _meta: { progressToken: id } })(id), answer: "sse" };
};

/**
 * The same framework requests on mcp-handler: stateless in both eras (no session to open), and in
 * 2025-11-25 it answers every request with an SSE stream, so the answer's format is left free.
 * `ours`: the row of ours it is compared with.
 */
export const mcpHandlerSystems = () =>
  ERAS.flatMap((era) => [
    { ...mcpSystem(era, "mcp-handler tools/list", "tools/list", undefined, isToolList), ours: `tools/list${era.suffix}` },
    { ...mcpSystem(era, "mcp-handler tools/call", "tools/call", SUGGEST_NAMES, isToolResult((s) => (s.names?.length === SUGGEST_NAMES.arguments.count ? undefined : "names"))), ours: `tools/call${era.suffix}` },
  ]).map((s) => ({ ...s, headers: s.headers ?? SESSIONLESS_2025, server: "mcp-handler", answer: "any", optional: "mcp-handler" }));

/** Plain node:http: the fixed JSON alone, and our core behind a minimal adapter (`raw`: its reference row). */
export const NODE_RAW = "node:http raw";
export const nodeHttpSystems = () => [
  { name: NODE_RAW, path: CEILING_PATH, body: rpc("tools/list"), check: hasResult, server: "node-raw", optional: "node:http" },
  ...ERAS.flatMap((era) => [
    { ...mcpSystem(era, "node:http core tools/list", "tools/list", undefined, isToolList), ours: `tools/list${era.suffix}` },
    { ...mcpSystem(era, "node:http core tools/call", "tools/call", SUGGEST_NAMES, isToolResult()), ours: `tools/call${era.suffix}` },
  ]).map((s) => ({ ...s, server: "node-core", raw: NODE_RAW, optional: "node:http" })),
];

/** The tools/call every framework row makes: suggest_names reads no world data (an audit row is all it writes). */
export const SUGGEST_NAMES = toolCall("suggest_names", { style: "elvish", count: 3 });

/** Per database: the two tools in both eras over HTTP, then the same reads without HTTP. */
export function databaseSystems(db) {
  return [
    ...ERAS.map((era) => mcpSystem(era, "get_world", "tools/call", toolCall("get_world", { worldId: TARGET_WORLD_ID }), isToolResult((s) => checkWorld(s.world)), db)),
    ...ERAS.map((era) => mcpSystem(era, "list_worlds", "tools/call", toolCall("list_worlds", LIST_ARGS), isToolResult((s) => checkWorldPage(s.worlds)), db)),
    ...["get_world", "list_worlds"].map((query) => ({ name: directRowName(query, db), db, direct: query })),
  ];
}

/**
 * get_world's measured floor on `db`'s server: get_world's request (2025-11-25: the same body, the
 * reader's session and token, which the route leaves unchecked) sent to the bare route that reads
 * the body, runs get_world's statement alone for the seeded world (named by a header: the body is
 * never parsed) and answers the row.
 */
export const ceilingStatement = (db) => ({
  name: statementRowName(db),
  db,
  auth: "reader",
  path: CEILING_STATEMENT_PATH,
  body: rpc("tools/call", toolCall("get_world", { worldId: TARGET_WORLD_ID })),
  extraHeaders: { [STATEMENT_WORLD_HEADER]: TARGET_WORLD_ID },
  check: (j) => checkWorld({ id: j?.id, counts: j?._count }) === undefined,
});

/**
 * The limiter rows' measured floor on `limits-<limiter>`: tools/call's request bytes sent to the
 * bare route that reads them, spends one tools/call budget through that server's limiter and
 * answers the ceiling's fixed JSON.
 */
export const ceilingLimiter = (limiter) => ({ name: limiterRowName(limiter), path: CEILING_LIMITER_PATH, body: rpc("tools/call", SUGGEST_NAMES), check: hasResult, server: `limits-${limiter}` });

/** Cells that are not closed-loop rows, selected by name like one: Redis commands per request kind, idle streams. */
export const EXTRA_CELLS = ["redis-trips", "idle-streams"];

/** The rows the machine's Node answers too (on `main-machine`), beside the same rows on Node 24. */
export const SECONDARY_ROWS = ["ceiling", CEILING_BODY, CEILING_PAGE, "tools/list", "tools/list@2026", "tools/call", "tools/call@2026"];

/** Those rows again as `node20:<row>` on the twin server running the machine's Node, if there is one. */
export function secondaryRows(all) {
  if (!SECONDARY_NODE) return [];
  return all.filter((s) => SECONDARY_ROWS.includes(s.name)).map((s) => ({ ...s, name: `${SECONDARY_NODE.prefix}${s.name}`, server: "main-machine", nodePrefix: SECONDARY_NODE.prefix, primary: s.name }));
}

export function defineSystems() {
  const all = [
    // Same bytes as a tools/list request, sent to the bare route: what Next alone costs.
    { name: "ceiling", path: CEILING_PATH, body: rpc("tools/list"), check: hasResult },
    // The bare route that also reads the body: the floor for any endpoint that must parse a POST.
    { name: CEILING_BODY, path: `${CEILING_PATH}/read-body`, body: rpc("tools/list"), check: hasResult },
    // The same route and bytes again, the A/A control (config.mjs): nothing differs but the name.
    { name: CEILING_BODY_TWIN, path: `${CEILING_PATH}/read-body`, body: rpc("tools/list"), check: hasResult },
    // ceiling+body answering a recorded tools/list page's bytes: tools/list's like-for-like floor.
    { name: CEILING_PAGE, path: CEILING_PAGE_PATH, body: rpc("tools/list"), check: isToolList },
    ...ERAS.flatMap((era) => [
      mcpSystem(era, "tools/list", "tools/list", undefined, isToolList),
      // The same list with a valid token: what verifying it costs (the JWKS is cached).
      mcpSystem(era, "tools/list+token", "tools/list", undefined, isToolList, undefined, true),
      mcpSystem(era, "tools/call", "tools/call", SUGGEST_NAMES, isToolResult()),
    ]),
    // The handshake of each era, and a tool call answered as a stream of progress.
    INITIALIZE,
    DISCOVER,
    ...ERAS.map(draftStream),
    // The same tools/list and tools/call on mcp-handler, then the core without Next.
    ...mcpHandlerSystems(),
    ...nodeHttpSystems(),
    // The same tools/call on a server whose limiter counts it (in process, in Redis): beside
    // tools/call above (limits off), what the limiter adds to a request.
    ...ERAS.flatMap((era) =>
      LIMITERS.map((limiter) => ({ ...mcpSystem(era, `tools/call+limits:${limiter}`, "tools/call", SUGGEST_NAMES, isToolResult()), server: `limits-${limiter}`, limiter })),
    ),
    // Their floors: the bare route spending a budget through each server's limiter, measured;
    // and the limiter's Redis call alone, no HTTP (cells/limiter-cell.mjs).
    ...LIMITERS.map(ceilingLimiter),
    { name: REDIS_LIMITER, direct: REDIS_LIMITER, redis: true },
    ...DATABASES.flatMap((db) => databaseSystems(db.key)),
    // get_world's floor on PostgreSQL, measured (its targets are on PostgreSQL only).
    ceilingStatement("pg"),
    ...ERAS.map(createWorld),
  ];
  all.push(...secondaryRows(all));
  if (!CONFIG.systems) return { systems: all, coldStart: CONFIG.coldStarts > 0, extras: new Set(EXTRA_CELLS) };
  const patterns = CONFIG.systems.map((text) => ({ text, re: globToRegExp(text) }));
  // Not closed-loop systems, but selected the same way.
  const coldStart = CONFIG.coldStarts > 0 && patterns.some(({ re }) => re.test(COLD_START));
  const extras = new Set(EXTRA_CELLS.filter((name) => patterns.some(({ re }) => re.test(name))));
  // A pattern that selects nothing is a typo: say so rather than quietly measure less.
  const unknown = patterns.filter(({ re }) => !re.test(COLD_START) && !EXTRA_CELLS.some((name) => re.test(name)) && !all.some((s) => re.test(s.name)));
  if (unknown.length > 0) throw new Error(`BENCH_SYSTEMS: nothing matches ${unknown.map((u) => u.text).join(", ")} (known: ${all.map((s) => s.name).join(", ")}, ${[COLD_START, ...EXTRA_CELLS].join(", ")})`);
  return { systems: all.filter((s) => patterns.some(({ re }) => re.test(s.name))), coldStart, extras };
}

/** A whole-name matcher where `*` stands for any text and everything else is literal. */
export function globToRegExp(glob) {
  const literal = (part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${glob.split("*").map(literal).join(".*")}$`);
}
