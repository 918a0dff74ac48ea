import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // NEXT_DIST_DIR lets the benchmark and the tests keep separate builds side by side.
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
  // The MCP endpoint is an API; nothing here needs the x-powered-by banner.
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
