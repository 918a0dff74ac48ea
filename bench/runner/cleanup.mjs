/**
 * Clean-up: whatever is started registers how to undo it; undone in reverse order (servers stop
 * before the databases they use are dropped), at the end or on a signal.
 */
export const cleanups = [];

export async function cleanUp() {
  while (cleanups.length > 0) {
    const undo = cleanups.pop();
    try {
      await undo();
    } catch (err) {
      console.error(`[bench] clean-up: ${err?.message ?? err}`);
    }
  }
}
