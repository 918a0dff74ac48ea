// `prisma generate`, runnable offline.
//
// The Prisma CLI resolves its native schema engine before every command, generate included, and
// downloads it when missing; its download host is unreachable from our machines. Generating a
// client never executes that engine, so for this one command we point
// PRISMA_SCHEMA_ENGINE_BINARY at a stub. It is set for this child process only: set globally it
// would break `prisma migrate deploy` for anyone who can download the real engine.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const stubDir = mkdtempSync(join(tmpdir(), "prisma-engine-stub-"));
const stub = join(stubDir, "schema-engine");
writeFileSync(stub, "#!/bin/sh\necho 'schema-engine stub: use npm run db:* scripts' >&2\nexit 1\n", { mode: 0o755 });

try {
  const result = spawnSync(
    process.execPath,
    [join(root, "node_modules/prisma/build/index.js"), "generate", ...process.argv.slice(2)],
    {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: stub, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
    },
  );
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(stubDir, { recursive: true, force: true });
}
