import type { Metadata } from "next";
import { AuthPage } from "@/lib/authorization-server/paths";
import { AuthFrame } from "../auth-frame";

export const metadata: Metadata = { title: "Signed out · WorldCrafter" };

export default function SignedOut() {
  return (
    <AuthFrame title="You are signed out" lead="Apps you connected keep their access until you disconnect them there.">
      <p>
        <a href={AuthPage.SignIn}>Sign in again</a>
      </p>
    </AuthFrame>
  );
}
