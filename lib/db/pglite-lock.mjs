// One process at a time on an embedded (PGlite) database folder. PGlite keeps the whole database
// in its process's memory and writes it back on its own schedule: a second process on the same
// folder sees its own copy, and whichever writes last wins, or leaves the folder unreadable. An
// outside review lost 148 of 240 acknowledged writes to a second `npm start` whose prestart
// migration opened the folder before the port clash stopped it. PGlite writes no lock of its own
// that another process honours, so this one does: a file beside the folder (`<folder>.lock`) with
// the holder's pid, made with O_EXCL, kept fresh while the holder lives, removed when it exits.
// Plain JS: the db scripts (scripts/db/*.mjs) take it as the server (lib/db/prisma.ts) does.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from "node:fs";

/** The holder touches its lock this often; a lock untouched for STALE_MS has no live holder. */
const BEAT_MS = 5_000;
const STALE_MS = 20_000;

/** Locks this process holds, by path: shared by every copy of this module in the process. */
const held = (globalThis.__worldcrafterPgliteLocks ??= new Map());

export class EmbeddedDatabaseBusy extends Error {
  /**
   * @param {string} dataDir
   * @param {{ pid?: number, who?: string, since?: string } | undefined} holder
   */
  constructor(dataDir, holder) {
    const by = holder?.pid ? `process ${holder.pid}${holder.who ? ` (${holder.who})` : ""}${holder.since ? `, since ${holder.since}` : ""}` : "another process";
    super(
      `the embedded database ${dataDir} is in use by ${by}. PGlite allows one process per folder: stop that one first ` +
        `(a second server would lose writes), or set DATABASE_URL to share a PostgreSQL database between servers. ` +
        `If no such process runs, delete ${lockPathOf(dataDir)}.`,
    );
    this.name = "EmbeddedDatabaseBusy";
  }
}

/** @param {string} dataDir */
export function lockPathOf(dataDir) {
  return `${dataDir.replace(/[\\/]+$/, "")}.lock`;
}

/** @returns {{ pid?: number, who?: string, since?: string } | undefined} */
function holderOf(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return /** @type {NodeJS.ErrnoException} */ (e).code === "EPERM";
  }
}

/** Whether the lock at `path` has a live holder other than this process: its pid runs and it was touched lately. */
function liveHolder(path, holder) {
  if (!holder || typeof holder.pid !== "number" || holder.pid === process.pid || !alive(holder.pid)) return false;
  try {
    return Date.now() - statSync(path).mtimeMs < STALE_MS;
  } catch {
    return false;
  }
}

/**
 * Takes the lock on `dataDir` for this process, or throws EmbeddedDatabaseBusy naming the holder.
 * Taken again in the same process, it is the same lock. `release` gives it up (once every taker
 * in the process has); the process's exit gives it up too. A lock left by a process that died
 * (kill -9, a crash, a container's earlier life) is taken over.
 * @param {string} dataDir
 * @param {string} who what holds it, for the message another process prints
 * @returns {() => void} release
 */
export function lockEmbeddedDatabase(dataDir, who) {
  const path = lockPathOf(dataDir);
  const mine = held.get(path);
  if (mine) {
    mine.takers += 1;
    return once(() => mine.release());
  }
  // The folder's parent is not made here: a folder that cannot be opened yet fails as PGlite's own
  // open would (ENOENT), and opens once the parent is there.
  for (let attempt = 0; ; attempt += 1) {
    try {
      const fd = openSync(path, "wx");
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, who, since: new Date().toISOString() }));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== "EEXIST") throw e;
      const holder = holderOf(path);
      if (liveHolder(path, holder) || attempt > 0) throw new EmbeddedDatabaseBusy(dataDir, holder);
      // No live holder: a lock its process never removed. Taken over once; a second clash is a live one.
      try {
        unlinkSync(path);
      } catch {}
    }
  }
  const beat = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch {}
  }, BEAT_MS);
  beat.unref();
  const giveUp = () => {
    clearInterval(beat);
    held.delete(path);
    process.off("exit", giveUp);
    try {
      if (holderOf(path)?.pid === process.pid) unlinkSync(path);
    } catch {}
  };
  const entry = {
    takers: 1,
    release() {
      entry.takers -= 1;
      if (entry.takers === 0) giveUp();
    },
  };
  held.set(path, entry);
  process.on("exit", giveUp);
  return once(() => entry.release());
}

function once(fn) {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
