import type { Metadata } from "next";
import { AuthFormAction, AuthPage, RETURN_TO, safeReturnPath } from "@/lib/authorization-server/paths";
import { askingClient, firstParam, flowQuery } from "@/lib/authorization-server/page-context";
import { formMessage } from "@/lib/authorization-server/page-messages";
import { builtinAuthServer } from "@/lib/worlds/authorization";
import { AuthFrame, NotAvailable, styles, type PageParams } from "../auth-frame";

export const metadata: Metadata = { title: "Sign in · WorldCrafter" };
export const dynamic = "force-dynamic";

export default async function SignIn({ searchParams }: { searchParams: Promise<PageParams> }) {
  const params = await searchParams;
  const state = builtinAuthServer();
  if (state.kind !== "ready") return <NotAvailable what="Sign-in" state={state} />;
  const query = flowQuery(params);
  // Sent here by one of our pages (a record's): back there once signed in.
  const returnTo = safeReturnPath(firstParam(params, RETURN_TO));
  const linkQuery = [query, returnTo ? `${RETURN_TO}=${encodeURIComponent(returnTo)}` : ""].filter(Boolean).join("&");
  const client = await askingClient(firstParam(params, "client_id"));
  const { github, google, oidc, signUp } = state.server.settings;
  const providers = [github ? { id: "github", label: "GitHub" } : undefined, google ? { id: "google", label: "Google" } : undefined, oidc ? { id: "oidc", label: oidc.name } : undefined].filter(
    (p): p is { id: string; label: string } => p !== undefined,
  );
  return (
    <AuthFrame
      title="Sign in"
      lead={client ? <>Sign in to connect <strong>{client.name}</strong> to your WorldCrafter worlds.</> : "Sign in to your WorldCrafter account."}
      error={formMessage(firstParam(params, "error"))}
    >
      <form method="post" action={AuthFormAction.SignIn} className={styles.form}>
        <input type="hidden" name="oauth_query" value={query} />
        {returnTo ? <input type="hidden" name={RETURN_TO} value={returnTo} /> : null}
        <div className={styles.field}>
          <label htmlFor="email">E-mail</label>
          <input id="email" name="email" type="email" autoComplete="email" required defaultValue={firstParam(params, "email")} />
        </div>
        <div className={styles.field}>
          <label htmlFor="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required minLength={8} maxLength={128} />
        </div>
        <button type="submit" className={styles.button}>
          Sign in
        </button>
      </form>
      {providers.length > 0 ? (
        <>
          <p className={styles.divider}>or</p>
          <div className={styles.actions}>
            {providers.map((p) => (
              <form key={p.id} method="post" action={AuthFormAction.Social}>
                <input type="hidden" name="oauth_query" value={query} />
                <input type="hidden" name="provider" value={p.id} />
                <button type="submit" className={`${styles.button} ${styles.secondary}`}>
                  Continue with {p.label}
                </button>
              </form>
            ))}
          </div>
        </>
      ) : null}
      {signUp.open ? (
        <p>
          New here? <a href={`${AuthPage.SignUp}${linkQuery ? `?${linkQuery}` : ""}`}>Create an account</a>
        </p>
      ) : null}
    </AuthFrame>
  );
}
