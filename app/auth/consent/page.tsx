import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { AuthFormAction, AuthPage } from "@/lib/authorization-server/paths";
import { askingClient, describeScopes, firstParam, flowQuery, redirectDestination } from "@/lib/authorization-server/page-context";
import { formMessage } from "@/lib/authorization-server/page-messages";
import { builtinAuthServer } from "@/lib/worlds/authorization";
import { AuthFrame, NotAvailable, styles, type PageParams } from "../auth-frame";

export const metadata: Metadata = { title: "Allow access · WorldCrafter" };
export const dynamic = "force-dynamic";

export default async function Consent({ searchParams }: { searchParams: Promise<PageParams> }) {
  const params = await searchParams;
  const state = builtinAuthServer();
  if (state.kind !== "ready") return <NotAvailable what="Sign-in" state={state} />;
  const client = await askingClient(firstParam(params, "client_id"));
  if (!client) return <AuthFrame title="Unknown application" error="The application asking for access is not registered here. Start again from the app." />;
  const query = flowQuery(params);
  // Consent is given by a signed-in person: without a session (signed out in another tab, the link
  // opened in another browser) Allow could only fail. Sign-in takes the same signed request and,
  // once signed in, better-auth brings the person back here.
  const session = await (await state.server.auth()).api.getSession({ headers: await headers() });
  if (!session) redirect(`${AuthPage.SignIn}${query ? `?${query}` : ""}`);
  const scopes = describeScopes(state.server.settings.scopes, firstParam(params, "scope"));
  const destination = redirectDestination(firstParam(params, "redirect_uri"));
  return (
    <AuthFrame title={`Allow ${client.name} to use WorldCrafter?`} error={formMessage(firstParam(params, "error"))}>
      {/* No client_uri beside the name: it is whatever the client registered, as the name is; only the host the answer goes back to (below) says who is asking. */}
      <p>
        <strong>{client.name}</strong> is asking to:
      </p>
      <ul className={styles.scopes} aria-label="Requested access">
        {scopes.map((s) => (
          <li key={s.name}>
            {s.description} <code>{s.name}</code>
          </li>
        ))}
      </ul>
      {destination ? (
        <p className={styles.lead}>
          Your answer goes back to <strong data-testid="redirect-destination">{destination}</strong>. Allow only if that is the app you are using.
        </p>
      ) : null}
      <p className={styles.lead}>To end this access later, disconnect WorldCrafter in the app you are using.</p>
      {/* Whose worlds the app gets, and a way to give it another account's: a chat client sends no prompt=login. */}
      <form method="post" action={AuthFormAction.SignOut} className={styles.lead}>
        <input type="hidden" name="oauth_query" value={query} />
        Signed in as <strong data-testid="signed-in-as">{session.user.email}</strong>.{" "}
        <button type="submit" className={styles.link}>
          Use another account
        </button>
      </form>
      <form method="post" action={AuthFormAction.Consent} className={styles.actions}>
        <input type="hidden" name="oauth_query" value={query} />
        <button type="submit" name="decision" value="allow" className={styles.button}>
          Allow
        </button>
        <button type="submit" name="decision" value="deny" className={`${styles.button} ${styles.secondary}`}>
          Deny
        </button>
      </form>
    </AuthFrame>
  );
}
