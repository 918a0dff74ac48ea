export class EmbeddedDatabaseBusy extends Error {
  constructor(dataDir: string, holder: { pid?: number; who?: string; since?: string } | undefined);
}
export function lockPathOf(dataDir: string): string;
export function lockEmbeddedDatabase(dataDir: string, who: string): () => void;
