import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { recordPage } from "@/lib/worlds/record-page";
import { AuthFrame } from "../../../auth/auth-frame";
import styles from "./record.module.css";

export const metadata: Metadata = { title: "WorldCrafter", robots: { index: false } };
export const dynamic = "force-dynamic";

/** A world, character or location for its owner: the url search and fetch cite. */
export default async function RecordPage({ params }: { params: Promise<{ kind: string; id: string }> }) {
  const { kind, id } = await params;
  const page = await recordPage(kind, id, await headers());
  if (page.kind === "sign_in") redirect(page.location);
  if (page.kind === "not_found") notFound();
  if (page.kind === "unavailable") return <AuthFrame title="Sign-in is not available" error={page.reason} />;
  const { document } = page;
  return (
    <AuthFrame title={document.title}>
      <pre className={styles.text}>{document.text}</pre>
      <dl className={styles.facts}>
        {Object.entries(document.metadata).map(([key, value]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>{String(value)}</dd>
          </div>
        ))}
      </dl>
    </AuthFrame>
  );
}
