/**
 * A small RFC 6570 matcher for resource templates: `{var}` (simple: no "/", "?", "#") and
 * `{+var}` (reserved: anything). That is what MCP resource templates use in practice; richer
 * operators are refused when the template is defined, not at request time.
 */
export interface UriTemplate {
  readonly template: string;
  readonly variables: readonly string[];
  match(uri: string): Record<string, string> | undefined;
}

const EXPRESSION = /\{(\+?)([A-Za-z0-9_]+)\}/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function compileUriTemplate(template: string): UriTemplate {
  const variables: string[] = [];
  let pattern = "^";
  let last = 0;
  for (const m of template.matchAll(EXPRESSION)) {
    pattern += escapeRegExp(template.slice(last, m.index));
    pattern += m[1] === "+" ? "(.+?)" : "([^/?#]+)";
    variables.push(m[2] as string);
    last = m.index + m[0].length;
  }
  const rest = template.slice(last);
  if (/[{}]/.test(rest) || /\{[^+A-Za-z0-9_]/.test(template)) {
    throw new Error(`Resource template ${template}: only {var} (one path segment) and {+var} (the rest, slashes included) are supported, not RFC 6570's other operators ({?q}, {/seg}, {#frag}, {var*}, {var:3}…)`);
  }
  pattern += escapeRegExp(rest) + "$";
  const regex = new RegExp(pattern);
  return {
    template,
    variables,
    match(uri) {
      const m = regex.exec(uri);
      if (!m) return undefined;
      const out: Record<string, string> = {};
      variables.forEach((name, i) => {
        const raw = m[i + 1] as string;
        try {
          out[name] = decodeURIComponent(raw);
        } catch {
          out[name] = raw;
        }
      });
      return out;
    },
  };
}
