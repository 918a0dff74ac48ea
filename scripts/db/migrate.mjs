#!/usr/bin/env node
// npm run db:migrate:create -- <name> [--draft] | db:deploy | db:status | db:diff [-- --from-db]
// Acts on DATABASE_URL when set, else on the embedded PGlite database (see target.mjs).
import { relative } from "node:path";
import { createMigration, deploy, diff, status } from "./commands.mjs";
import { databaseTarget, describeTarget, projectRoot } from "./target.mjs";

const [command, ...args] = process.argv.slice(2);
const target = databaseTarget();
const log = process.env.PRISMA_DEBUG_ENGINE ? (line) => console.error(line) : undefined;

async function main() {
  switch (command) {
    case "create": {
      const name = args.find((a) => !a.startsWith("--"));
      if (!name) throw new Error("usage: npm run db:migrate:create -- <name> [--draft]");
      const { created, dir } = await createMigration(target, name, { draft: args.includes("--draft"), log });
      console.log(created ? `Created ${relative(projectRoot, dir)}` : "No schema changes: no migration created.");
      return 0;
    }
    case "deploy": {
      // `npm run dev` migrates the embedded database it is about to open; a DATABASE_URL may be
      // shared or production, so it is migrated only when asked (npm run db:deploy).
      if (args.includes("--embedded-only") && target.kind !== "pglite") {
        console.log("DATABASE_URL is set: not migrating it (npm run db:deploy does).");
        return 0;
      }
      const { applied, total } = await deploy(target, { log });
      console.log(`${describeTarget(target)}: ${total} migration(s) in prisma/migrations`);
      console.log(applied.length ? `Applied:\n${applied.map((n) => `  ${n}`).join("\n")}` : "No pending migrations.");
      return 0;
    }
    case "status": {
      const s = await status(target, { log });
      console.log(`${describeTarget(target)}: ${s.total} migration(s) in prisma/migrations`);
      if (s.clean) console.log("Database schema is up to date.");
      else console.log(JSON.stringify({ history: s.history, failed: s.failedMigrationNames, edited: s.editedMigrationNames }, null, 2));
      return s.clean ? 0 : 1;
    }
    case "diff": {
      const { script, changed } = await diff(target, { from: args.includes("--from-db") ? "database" : "migrations", log });
      process.stdout.write(changed ? script : "-- No difference.\n");
      return changed ? 2 : 0;
    }
    default:
      throw new Error(`unknown command ${JSON.stringify(command)}: create <name> | deploy | status | diff [--from-db]`);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
