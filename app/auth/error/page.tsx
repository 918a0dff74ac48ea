import type { Metadata } from "next";
import { firstParam } from "@/lib/authorization-server/page-context";
import { flowMessage } from "@/lib/authorization-server/page-messages";
import { AuthFrame } from "../auth-frame";

export const metadata: Metadata = { title: "Something went wrong · WorldCrafter" };
export const dynamic = "force-dynamic";

/**
 * better-auth's errorURL: a flow it could not continue (an unknown client, a redirect URI it
 * refused). Only the code is read, and worded by us: error_description is anyone's text.
 */
export default async function AuthError({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  return (
    <AuthFrame title="The sign-in could not continue" error={flowMessage(firstParam(params, "error"))}>
      <p>Start again from the app you were connecting. If this keeps happening, its registration may have changed: remove the connector and add it again.</p>
    </AuthFrame>
  );
}
