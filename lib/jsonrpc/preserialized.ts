/** Results whose JSON text is computed once (list pages): the envelope splices it in verbatim. */
const texts = new WeakMap<object, string>();

export function preserialize<T extends object>(result: T): T {
  texts.set(result, JSON.stringify(result));
  return Object.freeze(result);
}

export function serializedOf(result: object): string | undefined {
  return texts.get(result);
}
