import { execFileSync } from "node:child_process";
import path from "node:path";
import type { NextConfig } from "next";
import { PHASE_PRODUCTION_BUILD } from "next/constants";

const nextConfig: NextConfig = {
  // NEXT_DIST_DIR lets the benchmark and the tests keep separate builds side by side.
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
  // The MCP endpoint is an API; nothing here needs the x-powered-by banner.
  poweredByHeader: false,
  reactStrictMode: true,
  async headers() {
    // The sign-in, sign-up and consent pages act for the signed-in user: no other site may frame
    // them to trick a click on "Allow" (clickjacking). Both headers, for browsers old and new.
    const noFraming = [
      { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
      { key: "X-Frame-Options", value: "DENY" },
    ];
    // The home page and the record pages (a signed-in person's worlds) have no reason to be framed
    // either; the preview frames its own widgets, so it may be framed by itself alone (outside
    // probe, 2026-11-29: a page of another origin framed all three).
    const ownFramesOnly = [
      { key: "Content-Security-Policy", value: "frame-ancestors 'self'" },
      { key: "X-Frame-Options", value: "SAMEORIGIN" },
    ];
    return [
      { source: "/auth/:path*", headers: noFraming },
      { source: "/records/:path*", headers: noFraming },
      { source: "/", headers: noFraming },
      { source: "/preview", headers: ownFramesOnly },
    ];
  },
};

/** Set once the schemas are written: the build's workers load this file again, with this environment. */
const SCHEMAS_WRITTEN = "WORLDCRAFTER_TOOL_SCHEMAS_WRITTEN";

/**
 * Every production build publishes the tools' JSON Schemas it was built with
 * (scripts/build-tool-schemas.mjs, lib/worlds/endpoint.ts), so they are made here, before the
 * build compiles anything: `npx next build` run by hand after a tool's schema changed cannot ship
 * the schemas of an earlier build. About a second, once per build.
 */
function writeToolSchemas(): void {
  if (process.env[SCHEMAS_WRITTEN]) return;
  // Next compiles this file to CommonJS: __dirname is the project's folder, wherever `next build` runs.
  execFileSync(process.execPath, [path.join(__dirname, "scripts/build-tool-schemas.mjs")], { cwd: __dirname, stdio: "inherit" });
  process.env[SCHEMAS_WRITTEN] = "1";
}

export default function config(phase: string): NextConfig {
  if (phase === PHASE_PRODUCTION_BUILD) writeToolSchemas();
  return nextConfig;
}
