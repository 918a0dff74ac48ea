import { z } from "zod";
import { CONTROL_CHARACTERS_MESSAGE } from "../mcp";

/**
 * Single-line text (names, themes, ids, queries, file names): no control character at all. Every
 * text field already refuses the other C0 characters (lib/mcp/runtime/validate.ts); multi-line
 * text keeps tab and newlines, single-line text refuses them too (docs/errors.md), so a newline
 * cannot split a name in an outline, a prompt or a log line.
 */
const SINGLE_LINE = /^[^\u0000-\u001f\u007f]*$/;

export const singleLine = () => z.string().regex(SINGLE_LINE, CONTROL_CHARACTERS_MESSAGE);
