import { AuthPage, RETURN_TO } from "../authorization-server/paths";
import { DomainError } from "./data/errors";
import { fetchDocument, type KnowledgeDocument } from "./knowledge/documents";
import { builtinAuthServer } from "./authorization";
import { isRecordKind, recordPath } from "./record-links";

/**
 * What a record's page (app/records/[kind]/[id]) shows, decided from the request's headers: the
 * signed-in person is the better-auth session of the built-in authorization server, and their
 * user id is the subject their tokens carry, so the records they own are the ones its tools
 * wrote. Not signed in: the sign-in page, which brings them back. Another person's record, or
 * none: not found, the same page either way (no existence oracle).
 */
export type RecordPage =
  | { kind: "found"; document: KnowledgeDocument }
  | { kind: "sign_in"; location: string }
  | { kind: "not_found" }
  | { kind: "unavailable"; reason: string };

/** A route segment as written in the URL, decoded; undefined when it is not valid percent-encoding. */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export async function recordPage(kindText: string, idSegment: string, headers: Headers): Promise<RecordPage> {
  const id = decodedSegment(idSegment);
  if (!isRecordKind(kindText) || !id || id.length > 64) return { kind: "not_found" };
  const state = builtinAuthServer();
  if (state.kind !== "ready") {
    return { kind: "unavailable", reason: state.kind === "external" ? "This deployment signs in with an external authorization server: open your worlds in your MCP client." : state.problems.join("; ") };
  }
  const session = await (await state.server.auth()).api.getSession({ headers });
  if (!session) return { kind: "sign_in", location: `${AuthPage.SignIn}?${RETURN_TO}=${encodeURIComponent(recordPath(kindText, id))}` };
  try {
    // As typed: the page escapes it as HTML and renders no Markdown.
    return { kind: "found", document: await fetchDocument(session.user.id, `${kindText}:${id}`, "typed") };
  } catch (thrown) {
    // NotFoundError, or an id the parser refuses: a missing record, whoever asks.
    if (thrown instanceof DomainError) return { kind: "not_found" };
    throw thrown;
  }
}
