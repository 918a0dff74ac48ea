import type { Metadata } from "next";
import { SIGN_UP_LIMITS } from "@/lib/authorization-server/input-limits";
import { AuthFormAction, AuthPage, RETURN_TO, safeReturnPath } from "@/lib/authorization-server/paths";
import { askingClient, firstParam, flowQuery } from "@/lib/authorization-server/page-context";
import { formMessage } from "@/lib/authorization-server/page-messages";
import { builtinAuthServer } from "@/lib/worlds/authorization";
import { AuthFrame, NotAvailable, styles, type PageParams } from "../auth-frame";

export const metadata: Metadata = { title: "Create an account · WorldCrafter" };
export const dynamic = "force-dynamic";

export default async function SignUp({ searchParams }: { searchParams: Promise<PageParams> }) {
  const params = await searchParams;
  const state = builtinAuthServer();
  if (state.kind !== "ready") return <NotAvailable what="Sign-up" state={state} />;
  const query = flowQuery(params);
  // Sent here by one of our pages (a record's): back there once signed in.
  const returnTo = safeReturnPath(firstParam(params, RETURN_TO));
  const linkQuery = [query, returnTo ? `${RETURN_TO}=${encodeURIComponent(returnTo)}` : ""].filter(Boolean).join("&");
  const signIn = `${AuthPage.SignIn}${linkQuery ? `?${linkQuery}` : ""}`;
  const { signUp } = state.server.settings;
  if (!signUp.open) {
    return (
      <AuthFrame title="New accounts are closed" lead="This server does not take new accounts.">
        <p>
          <a href={signIn}>Sign in with an existing account</a>
        </p>
      </AuthFrame>
    );
  }
  const client = await askingClient(firstParam(params, "client_id"));
  return (
    <AuthFrame
      title="Create an account"
      lead={client ? <>Create a WorldCrafter account to connect <strong>{client.name}</strong>.</> : "Create a WorldCrafter account."}
      error={formMessage(firstParam(params, "error"))}
    >
      {signUp.domains.length > 0 ? <p>Accounts can be created for addresses at {signUp.domains.join(", ")}.</p> : null}
      <form method="post" action={AuthFormAction.SignUp} className={styles.form}>
        <input type="hidden" name="oauth_query" value={query} />
        {returnTo ? <input type="hidden" name={RETURN_TO} value={returnTo} /> : null}
        <div className={styles.field}>
          <label htmlFor="name">Name</label>
          <input id="name" name="name" type="text" autoComplete="name" maxLength={SIGN_UP_LIMITS.name} />
        </div>
        <div className={styles.field}>
          <label htmlFor="email">E-mail</label>
          <input id="email" name="email" type="email" autoComplete="email" required maxLength={SIGN_UP_LIMITS.email} defaultValue={firstParam(params, "email")} />
        </div>
        <div className={styles.field}>
          <label htmlFor="password">Password (at least 8 characters)</label>
          <input id="password" name="password" type="password" autoComplete="new-password" required minLength={8} maxLength={128} />
        </div>
        <button type="submit" className={styles.button}>
          Create account
        </button>
      </form>
      <p>
        Already have an account? <a href={signIn}>Sign in</a>
      </p>
    </AuthFrame>
  );
}
