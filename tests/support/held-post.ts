import { request as httpRequest } from "node:http";

/**
 * A POST whose body is sent as given and then held open (never ended): the answer must come from
 * what was sent, before any more. Resolves with the status and text of the answer.
 */
export function postHeldOpen(target: string, headers: Record<string, string>, chunks: readonly Buffer[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(target, { method: "POST", headers, signal: AbortSignal.timeout(10_000) }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, text });
        req.destroy();
      });
    });
    req.on("error", (error) => reject(new Error(`no answer before the body ended: ${String(error)}`)));
    req.flushHeaders();
    for (const chunk of chunks) req.write(chunk);
  });
}
