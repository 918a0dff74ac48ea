export type RequestTarget = { form: "origin" } | { form: "asterisk" } | { form: "absolute"; path: string; host: string } | { form: "invalid" };

export function requestTargetOf(target: string): RequestTarget;
