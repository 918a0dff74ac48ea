// Read by the Prisma CLI only (`prisma generate`, and `prisma migrate deploy` for users whose
// machine can download Prisma's native engine). The app and scripts/db/ never read it.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations", seed: "npm run db:seed" },
  // Optional here so `prisma generate` works without a database; migrate commands need it.
  ...(process.env.DATABASE_URL ? { datasource: { url: process.env.DATABASE_URL } } : {}),
});
