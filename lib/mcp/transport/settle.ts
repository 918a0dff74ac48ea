/**
 * Run `produce` and hand its value to `done` — synchronously when it returns a plain value, so
 * quick methods cost no promise hop — or its failure (thrown or rejected) to `fail`.
 */
export function settle<T>(produce: () => T | Promise<T>, done: (value: T) => void, fail: (thrown: unknown) => void): void {
  let outcome: T | Promise<T>;
  try {
    outcome = produce();
  } catch (thrown) {
    fail(thrown);
    return;
  }
  if (outcome instanceof Promise) outcome.then(done, fail);
  else done(outcome);
}
