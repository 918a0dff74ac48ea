import type { ReactNode } from "react";
import "./palette.css";

export const metadata = { title: "WorldCrafter MCP", description: "A hand-written MCP server for building fictional worlds" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", margin: "2rem", maxWidth: 720 }}>{children}</body>
    </html>
  );
}
