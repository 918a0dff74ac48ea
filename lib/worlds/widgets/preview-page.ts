import { WIDGET_HTML } from "./generated";
import { PREVIEW_SCRIPT, PREVIEW_STYLE } from "./generated-preview";

/** JSON inside <script type="application/json">: no "<" may end the element or open a comment. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

/**
 * The developer preview (/preview): each widget with sample data in an emulated ChatGPT host and
 * an emulated MCP Apps host side by side (widgets/hosts/preview.ts does the rendering).
 */
export function previewPage(): string {
  // The same document every time: built once (it embeds every widget's HTML, about 1.2 MB).
  page ??= `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>WorldCrafter widgets — preview</title>
<style>${PREVIEW_STYLE}</style>
</head>
<body>
<h1>WorldCrafter widgets</h1>
<p>Each widget with sample data, as ChatGPT (<code>window.openai</code>) and an MCP Apps host (ext-apps <code>AppBridge</code>) render it. Buttons call a sample server in this page; links, display modes, modals, uploads and closing are played by the emulated hosts and listed under each widget. The locale switch re-renders every widget in that language. <a href="/">Back to the server</a></p>
<main id="preview"></main>
<script type="application/json" id="preview-widgets">${scriptJson(WIDGET_HTML)}</script>
<script>${PREVIEW_SCRIPT}</script>
</body>
</html>
`;
  return page;
}

let page: string | undefined;
