import type { ReactNode } from "react";
import styles from "./auth.module.css";

/** The frame of every authorization page: a heading, an optional error read aloud, the content. */
export function AuthFrame({ title, lead, error, children }: { title: string; lead?: ReactNode; error?: string | undefined; children?: ReactNode }) {
  return (
    <main className={styles.page}>
      <style href="worldcrafter-color-scheme" precedence="default">{":root{color-scheme:light dark}"}</style>
      <p>
        <a href="/">WorldCrafter</a>
      </p>
      <h1>{title}</h1>
      {lead ? <p className={styles.lead}>{lead}</p> : null}
      {error ? (
        <p className={styles.alert} role="alert">
          {error}
        </p>
      ) : null}
      {children}
    </main>
  );
}

/** The page for a deployment whose built-in server cannot sign anyone in: it says why. */
export function NotAvailable({ what, state }: { what: string; state: { kind: "external" } | { kind: "unavailable"; problems: readonly string[] } }) {
  return <AuthFrame title={`${what} is not available`} error={state.kind === "unavailable" ? state.problems.join("; ") : "This deployment signs in with an external authorization server."} />;
}

/** The query string of an authorization page, as its server component receives it. */
export type PageParams = Record<string, string | string[] | undefined>;

export { styles };
