import { z } from "zod";
import { CONTROL_CHARACTERS_MESSAGE } from "../mcp";

/**
 * Text as WorldCrafter stores and compares it: Unicode NFC. "Café" typed on a keyboard (U+00E9)
 * and "Cafe\u0301" from a file (e + combining acute) look the same to a person, so they must be
 * one name to the duplicate-name check, the filters, completion and `confirmName`. Limits count the
 * normalized text. lib/worlds/data/text-match.ts normalizes what is matched against it.
 */
export const storedText = () => z.string().normalize("NFC");

/**
 * Single-line text (names, themes, ids, queries, file names): no control character at all, no
 * line or paragraph separator, and no bidirectional control. Every text field already refuses the
 * other control characters (lib/mcp/runtime/validate.ts); multi-line text keeps tab and newlines,
 * single-line text refuses them too (docs/errors.md), and NEL (U+0085), U+2028 and U+2029, which
 * some readers also break lines on, so a name cannot be split in an outline, a prompt or a log line.
 */
const SINGLE_LINE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]*$/;

/**
 * The bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) reorder the
 * text after them: "evil\u202Egpj.exe" reads as "evilexe.jpg" to the user and the model (outside
 * audit). A name has no need of them; right-to-left names are written with the letters themselves,
 * and the marks U+200E/U+200F stay allowed.
 */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
export const BIDI_CONTROLS_MESSAGE = "Bidirectional control characters (U+202A-U+202E, U+2066-U+2069) are not allowed";

// One pattern, which the published JSON Schema carries (a second became an allOf, which not every
// host's schema reader takes): it refuses the bidirectional controls too, so an argument that
// passes the schema a client read is one this server takes (outside probe, 2026-11-29: the
// published pattern let them through). The refinement before it names them in the error, and
// `abort` keeps the pattern's more general message out of it. Text is kept in Unicode NFC
// (`storedText`): a name looks the same whichever form a keyboard or a file gave it.
export const singleLine = () =>
  storedText()
    .refine((text) => !BIDI_CONTROL.test(text), { message: BIDI_CONTROLS_MESSAGE, abort: true })
    .regex(SINGLE_LINE, CONTROL_CHARACTERS_MESSAGE);
