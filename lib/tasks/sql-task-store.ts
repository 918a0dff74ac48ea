import { storableJson, storableText } from "./storable";
import type { NewTask, TaskEnding, TaskError, TaskInputRequest, TaskLimits, TaskRecord, TaskStore, StoredTaskStatus } from "../mcp";

/** Runs one parameterized statement (lib/db's `sql`: PostgreSQL or PGlite). */
export type RunSql = <T>(text: string, params: readonly unknown[]) => Promise<T[]>;
/** Runs statements in one transaction on one connection (lib/db's `transaction`). */
export type RunTransaction = <T>(work: (sql: RunSql) => Promise<T>) => Promise<T>;

/** The advisory-lock key space of task creation (hashtextextended's seed): apart from any other lock. */
const TASK_OWNER_LOCK_SEED = 2663;

/**
 * The task store over the McpTask table (prisma/schema.prisma), in plain SQL like the audit log:
 * a task read is one statement and never loads Prisma's client. Times go in and out as epoch
 * milliseconds (the columns are UTC timestamps without zone), JSON as jsonb text. Every status
 * change is a conditional UPDATE, so a task ends exactly once whichever instance writes first.
 */
const ts = (param: string) => `(to_timestamp(${param}::float8 / 1000.0) AT TIME ZONE 'UTC')`;
const ms = (column: string) => `(extract(epoch from "${column}") * 1000)::float8`;

const COLUMNS = `"id", "owner", "tool", "argsDigest", "status", "statusMessage", "progress", "progressTotal", "result", "error",
  "inputRequests", "inputResponses", "ttlMs", "pollIntervalMs", "instance",
  ${ms("createdAt")} AS "createdAtMs", ${ms("updatedAt")} AS "updatedAtMs", ${ms("expiresAt")} AS "expiresAtMs", ${ms("leaseExpiresAt")} AS "leaseExpiresAtMs"`;

interface Row {
  id: string;
  owner: string;
  tool: string;
  argsDigest: string;
  status: string;
  statusMessage: string | null;
  progress: number | null;
  progressTotal: number | null;
  result: unknown;
  error: unknown;
  inputRequests: unknown;
  inputResponses: unknown;
  ttlMs: number;
  pollIntervalMs: number;
  instance: string;
  createdAtMs: number;
  updatedAtMs: number;
  expiresAtMs: number;
  leaseExpiresAtMs: number;
}

/** jsonb arrives parsed from `pg` and from PGlite; a string is tolerated all the same. */
function json<T>(value: unknown): T | undefined {
  if (value === null || value === undefined) return undefined;
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}

const STATUSES: readonly StoredTaskStatus[] = ["working", "completed", "failed", "cancelled"];

function recordOf(row: Row): TaskRecord {
  return {
    id: row.id,
    owner: row.owner,
    tool: row.tool,
    argsDigest: row.argsDigest,
    status: STATUSES.includes(row.status as StoredTaskStatus) ? (row.status as StoredTaskStatus) : "failed",
    statusMessage: row.statusMessage ?? undefined,
    progress: row.progress ?? undefined,
    progressTotal: row.progressTotal ?? undefined,
    result: json<Record<string, unknown>>(row.result),
    error: json<TaskError>(row.error),
    inputRequests: json<Record<string, TaskInputRequest>>(row.inputRequests) ?? {},
    inputResponses: json<Record<string, unknown>>(row.inputResponses) ?? {},
    ttlMs: Number(row.ttlMs),
    pollIntervalMs: Number(row.pollIntervalMs),
    instance: row.instance,
    createdAt: new Date(Math.round(Number(row.createdAtMs))),
    updatedAt: new Date(Math.round(Number(row.updatedAtMs))),
    expiresAt: new Date(Math.round(Number(row.expiresAtMs))),
    leaseExpiresAt: new Date(Math.round(Number(row.leaseExpiresAtMs))),
  };
}

export function sqlTaskStore(run: RunSql, inTransaction: RunTransaction): TaskStore {
  return {
    async create(task: NewTask, limits: TaskLimits) {
      // Counted and inserted in one transaction that first takes the owner's advisory lock: on
      // any number of instances, concurrent creations for one owner take turns, and each counts
      // what the ones before it stored. Running means a live lease: a dead instance's tasks stop
      // counting at once (they read failed when next read, runtime.ts).
      return inTransaction(async (tx) => {
        await tx(`SELECT pg_advisory_xact_lock(hashtextextended($1, ${TASK_OWNER_LOCK_SEED}))`, [task.owner]);
        const counts = await tx<{ working: number; stored: number }>(
          `SELECT count(*) FILTER (WHERE "status" = 'working' AND "leaseExpiresAt" > ${ts("$2")})::int AS "working", count(*)::int AS "stored"
           FROM "McpTask" WHERE "owner" = $1 AND "expiresAt" > ${ts("$2")}`,
          [task.owner, task.createdAt.getTime()],
        );
        if (Number(counts[0]?.working ?? 0) >= limits.maxWorking) return { refused: "working" as const };
        if (Number(counts[0]?.stored ?? 0) >= limits.maxStored) return { refused: "stored" as const };
        const rows = await tx<Row>(
          `INSERT INTO "McpTask" ("id", "owner", "tool", "argsDigest", "status", "ttlMs", "pollIntervalMs", "instance", "createdAt", "updatedAt", "expiresAt", "leaseExpiresAt")
           VALUES ($1, $2, $3, $4, 'working', $5, $6, $7, ${ts("$8")}, ${ts("$8")}, ${ts("$9")}, ${ts("$10")})
           RETURNING ${COLUMNS}`,
          [task.id, task.owner, task.tool, task.argsDigest, task.ttlMs, task.pollIntervalMs, task.instance, task.createdAt.getTime(), task.expiresAt.getTime(), task.leaseExpiresAt.getTime()],
        );
        if (!rows[0]) throw new Error(`The task ${task.id} was not stored`);
        return recordOf(rows[0]);
      });
    },
    async get(id, owner, now) {
      const rows = await run<Row>(`SELECT ${COLUMNS} FROM "McpTask" WHERE "id" = $1 AND "owner" = $2 AND "expiresAt" > ${ts("$3")}`, [id, owner, now.getTime()]);
      return rows[0] ? recordOf(rows[0]) : undefined;
    },
    async renew(id, leaseExpiresAt, instance) {
      const rows = await run<{ id: string }>(
        `UPDATE "McpTask" SET "leaseExpiresAt" = ${ts("$2")}, "instance" = $3 WHERE "id" = $1 AND "status" = 'working' RETURNING "id"`,
        [id, leaseExpiresAt.getTime(), instance],
      );
      return rows.length > 0;
    },
    async progress(id, progress, total, message) {
      await run(
        `UPDATE "McpTask" SET "progress" = $2, "progressTotal" = $3, "statusMessage" = COALESCE($4, "statusMessage"), "updatedAt" = ${ts("$5")}
         WHERE "id" = $1 AND "status" = 'working'`,
        [id, progress, total ?? null, message === undefined ? null : storableText(message), Date.now()],
      );
    },
    async ask(id, requests) {
      await run(
        `UPDATE "McpTask" SET "inputRequests" = "inputRequests" || $2::jsonb, "updatedAt" = ${ts("$3")} WHERE "id" = $1 AND "status" = 'working'`,
        [id, storableJson(requests), Date.now()],
      );
    },
    async answers(id) {
      const rows = await run<{ status: string; inputResponses: unknown }>(`SELECT "status", "inputResponses" FROM "McpTask" WHERE "id" = $1`, [id]);
      const row = rows[0];
      if (!row) return undefined;
      return { status: row.status as StoredTaskStatus, inputResponses: json<Record<string, unknown>>(row.inputResponses) ?? {} };
    },
    async answer(id, owner, responses, now) {
      // SEP-2663 §Task Update Requests: answers to keys not currently outstanding (never asked,
      // already answered) are ignored, and an update with no outstanding answer in it leaves the
      // row alone, "updatedAt" included. Which keys are outstanding is read from the row being
      // updated, in the UPDATE itself: of two concurrent answers to one key the second re-reads
      // the row the first wrote and is ignored. `known` is read beside it: whether the owner's
      // task exists does not depend on the update.
      const rows = await run<{ accepted: boolean; known: boolean }>(
        `WITH "accepted" AS (
           UPDATE "McpTask" SET "inputResponses" = "inputResponses" || (
               SELECT COALESCE(jsonb_object_agg(r.key, r.value), '{}'::jsonb) FROM jsonb_each($3::jsonb) AS r
               WHERE "McpTask"."inputRequests" ? r.key AND NOT ("McpTask"."inputResponses" ? r.key)),
             "updatedAt" = ${ts("$4")}
           WHERE "id" = $1 AND "owner" = $2 AND "expiresAt" > ${ts("$4")} AND "status" = 'working'
             AND EXISTS (SELECT 1 FROM jsonb_object_keys($3::jsonb) AS k(key)
                         WHERE "McpTask"."inputRequests" ? k.key AND NOT ("McpTask"."inputResponses" ? k.key))
           RETURNING "id")
         SELECT EXISTS (SELECT 1 FROM "accepted") AS "accepted",
                EXISTS (SELECT 1 FROM "McpTask" WHERE "id" = $1 AND "owner" = $2 AND "expiresAt" > ${ts("$4")}) AS "known"`,
        [id, owner, JSON.stringify(responses), now.getTime()],
      );
      if (rows[0]?.accepted) return "accepted";
      return rows[0]?.known ? "ignored" : "unknown";
    },
    async end(id, ending: TaskEnding, condition) {
      const message = ending.status === "cancelled" ? ending.statusMessage : ending.status === "failed" ? ending.error.message : null;
      const params: unknown[] = [
        id,
        ending.status,
        ending.status === "completed" ? storableJson(ending.result) : null,
        ending.status === "failed" ? storableJson(ending.error) : null,
        message === null ? null : storableText(message),
        Date.now(),
      ];
      let where = `"id" = $1 AND "status" = 'working'`;
      if (condition.owner !== undefined) {
        params.push(condition.owner);
        where += ` AND "owner" = $${params.length}`;
      }
      if (condition.leaseBefore !== undefined) {
        params.push(condition.leaseBefore.getTime());
        where += ` AND "leaseExpiresAt" < ${ts(`$${params.length}`)}`;
      }
      const rows = await run<{ id: string }>(
        `UPDATE "McpTask" SET "status" = $2, "result" = $3::jsonb, "error" = $4::jsonb, "statusMessage" = COALESCE($5, "statusMessage"), "updatedAt" = ${ts("$6")}
         WHERE ${where} RETURNING "id"`,
        params,
      );
      return rows.length > 0;
    },
    async runStopped(id, statusMessage) {
      await run(`UPDATE "McpTask" SET "statusMessage" = $2 WHERE "id" = $1 AND "status" = 'cancelled'`, [id, statusMessage]);
    },
    async sweep(now) {
      const rows = await run<{ id: string }>(`DELETE FROM "McpTask" WHERE "expiresAt" <= ${ts("$1")} RETURNING "id"`, [now.getTime()]);
      return rows.length;
    },
  };
}
