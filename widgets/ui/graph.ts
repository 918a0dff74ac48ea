/**
 * The relations between characters as an SVG graph: characters on a circle, one line per pair
 * related either way. Built with createElementNS and text nodes only (names are never markup);
 * the viewBox scales it to any width, a phone's included.
 */

export interface GraphNode {
  id: string;
  name: string;
}

const SVG = "http://www.w3.org/2000/svg";
const SIZE = 400;
const RADIUS = 150;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  for (const child of children) element.append(typeof child === "string" ? document.createTextNode(child) : child);
  return element;
}

/** Unordered pairs, once each, of ids that are both drawn. */
export function edgesOf(nodes: readonly GraphNode[], relations: ReadonlyMap<string, readonly string[]>): [string, string][] {
  const known = new Set(nodes.map((n) => n.id));
  const seen = new Set<string>();
  const edges: [string, string][] = [];
  for (const [from, tos] of relations) {
    for (const to of tos) {
      if (from === to || !known.has(from) || !known.has(to)) continue;
      const key = from < to ? `${from}\u0000${to}` : `${to}\u0000${from}`;
      if (seen.has(key)) continue;
      seen.add(key);
      edges.push([from, to]);
    }
  }
  return edges;
}

export function relationsGraph(nodes: readonly GraphNode[], relations: ReadonlyMap<string, readonly string[]>, label: string): SVGSVGElement {
  const center = SIZE / 2;
  const at = new Map(
    nodes.map((n, i) => {
      // One node sits in the middle; more go round the circle, the first at the top.
      const angle = (2 * Math.PI * i) / nodes.length - Math.PI / 2;
      const r = nodes.length === 1 ? 0 : RADIUS;
      return [n.id, { x: center + r * Math.cos(angle), y: center + r * Math.sin(angle) }] as const;
    }),
  );
  const lines = edgesOf(nodes, relations).map(([a, b]) => {
    const p = at.get(a)!;
    const q = at.get(b)!;
    return svg("line", { x1: p.x.toFixed(1), y1: p.y.toFixed(1), x2: q.x.toFixed(1), y2: q.y.toFixed(1), class: "edge", "data-edge": `${a} ${b}` });
  });
  const dots = nodes.map((n) => {
    const p = at.get(n.id)!;
    // Labels keep inside the picture: left of the centre they end at the dot, right of it they start there.
    const anchor = Math.abs(p.x - center) < 1 ? "middle" : p.x < center ? "end" : "start";
    const dx = anchor === "middle" ? 0 : anchor === "end" ? -12 : 12;
    const dy = anchor === "middle" ? (p.y < center ? -14 : 24) : 4;
    return svg(
      "g",
      { class: "node", "data-node-id": n.id },
      svg("title", {}, n.name),
      svg("circle", { cx: p.x.toFixed(1), cy: p.y.toFixed(1), r: 8 }),
      svg("text", { x: (p.x + dx).toFixed(1), y: (p.y + dy).toFixed(1), "text-anchor": anchor }, n.name.length > 18 ? `${n.name.slice(0, 17)}…` : n.name),
    );
  });
  return svg("svg", { viewBox: `-90 -20 ${SIZE + 180} ${SIZE + 40}`, role: "img", "aria-label": label, class: "graph", "data-testid": "relations-graph" }, svg("title", {}, label), ...lines, ...dots);
}
