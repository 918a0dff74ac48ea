import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // The MCP endpoint is an API; nothing here needs the x-powered-by banner.
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
