import type { NextConfig } from "next";

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
    return [{ source: "/auth/:path*", headers: noFraming }];
  },
};

export default nextConfig;
