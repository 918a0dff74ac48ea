// The closed-loop load generator, shared by the HTTP cells (bench/run.mjs) and the direct database
// cells (bench/db-worker.ts), so both kinds of row are timed by the same code.
import { performance } from "node:perf_hooks";

/**
 * `concurrency` workers each keep exactly one `call()` in flight until `seconds` have passed.
 * `call` resolves to undefined when the answer is right, or to a string saying what was wrong;
 * a rejection counts as an error too. Latency is recorded for every answered call.
 * @param {{ concurrency: number, seconds: number, call: () => Promise<string | undefined> }} options
 */
export async function closedLoop({ concurrency, seconds, call }) {
  const latencies = [];
  let ok = 0;
  let errors = 0;
  let firstError;
  const fail = (why) => {
    errors++;
    firstError ??= why;
  };

  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const start = performance.now();
      try {
        const problem = await call();
        latencies.push(performance.now() - start);
        if (problem === undefined) ok++;
        else fail(problem);
      } catch (err) {
        fail(String(err?.message ?? err));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ok, errors, firstError, latencies, wallMs: performance.now() - t0 };
}
