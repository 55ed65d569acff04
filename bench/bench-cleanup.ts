// What the bench must undo however it ends (success, error, Ctrl-C): child servers, the
// temporary data directory, a PostgreSQL schema. Each step registers its undo here and
// unregisters it once it has undone it itself.
type Cleanup = () => Promise<void> | void;

const pending: { label: string; run: Cleanup }[] = [];

/** Registers an undo; the returned function removes it (call it after undoing by hand). */
export function deferCleanup(label: string, run: Cleanup): () => void {
  const entry = { label, run };
  pending.push(entry);
  return () => {
    const index = pending.indexOf(entry);
    if (index >= 0) pending.splice(index, 1);
  };
}

/** Runs every pending undo, newest first; a failing one is reported and the rest still run. */
export async function runPendingCleanups(): Promise<void> {
  while (pending.length > 0) {
    const entry = pending.pop()!;
    try {
      await entry.run();
    } catch (error) {
      process.stderr.write(`bench: cleanup of ${entry.label} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}
