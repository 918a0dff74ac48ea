/**
 * `value` names an https origin exactly as a browser would write it: scheme, lower-case host and
 * optional port, nothing after (a trailing `/` allowed), no wildcard. Widget CSP lists and
 * MCP_WIDGET_DOMAIN both need it: hosts compare origins as strings, so a path or an upper-case
 * letter would silently never match.
 */
export function isExactHttpsOrigin(value: string): boolean {
  if (value.includes("*")) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === "https:" && url.origin === value.replace(/\/$/, "");
}
