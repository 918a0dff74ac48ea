/**
 * The length limits of the world tools' text fields, in one place: the tools' input schemas
 * (tools/data/shared.ts) and the widgets' fields (maxlength) both read them, so a widget never
 * lets the user type what the tool will refuse. Plain numbers, no imports: the widgets bundle it.
 */
export const FIELD_LIMITS = {
  id: 64,
  name: 120,
  theme: 60,
  /** Role, tone and other one-line fields. */
  shortText: 120,
  /** Description, backstory. */
  longText: 2000,
  trait: 60,
  traits: 12,
} as const;
