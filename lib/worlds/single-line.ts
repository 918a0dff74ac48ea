import { z } from "zod";
import { CONTROL_CHARACTERS_MESSAGE } from "../mcp";

/**
 * Single-line text (names, themes, ids, queries, file names): no control character at all, and no
 * line or paragraph separator. Every text field already refuses the other control characters
 * (lib/mcp/runtime/validate.ts); multi-line text keeps tab and newlines, single-line text refuses
 * them too (docs/errors.md), and NEL (U+0085), U+2028 and U+2029, which some readers also break
 * lines on, so a name cannot be split in an outline, a prompt or a log line.
 */
const SINGLE_LINE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/;

export const singleLine = () => z.string().regex(SINGLE_LINE, CONTROL_CHARACTERS_MESSAGE);
