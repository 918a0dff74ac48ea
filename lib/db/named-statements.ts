import { hash } from "node:crypto";

/**
 * Named (server-side prepared) statements for the plain-SQL paths. PostgreSQL plans an unnamed
 * statement on every execution; get_world's one statement spent more time being planned (about
 * 0.2 ms) than run (under 0.1 ms). A named statement is parsed and planned once per connection,
 * and after five executions the server may settle on a generic plan (PostgreSQL docs: PREPARE,
 * "plan_cache_mode"). Measured on loopback with `pg`: 354 → 132 µs per get_world round trip.
 *
 * PgBouncer in transaction mode before 1.21 (and other poolers that hand each transaction a
 * different server connection) cannot keep a statement between transactions. Prisma's convention
 * for such URLs is `pgbouncer=true`; we honour it and send every statement unnamed.
 */

/** False when the URL asks for a pooler that cannot keep prepared statements (`?pgbouncer=true`). */
export function preparedStatementsAllowed(url: string): boolean {
  return new URL(url).searchParams.get("pgbouncer") !== "true";
}

/**
 * Statement texts are constants of the code (values go in parameters), so a handful of names
 * exist. Past this many, a caller is building texts at run time: those go unnamed rather than
 * grow this map and every connection's statement cache without bound.
 */
const MAX_NAMED = 256;
const names = new Map<string, string>();

/**
 * A stable name for a statement's text, or undefined (send it unnamed): the same text gets the
 * same name on every connection and instance, and two texts never share one (`pg` refuses a known
 * name with a new text).
 */
export function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `wc_${hash("sha256", text, "hex").slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}
