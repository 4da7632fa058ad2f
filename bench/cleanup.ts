/**
 * What must be undone however the bench ends — normally, on an error, on Ctrl-C: a temporary
 * git worktree, above all. Tasks are synchronous so a signal handler can run them before exiting.
 */
const tasks = new Set<() => void>();

/** Registers `task`; the returned function runs it now (once) and forgets it. */
export function atCleanup(task: () => void): () => void {
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    tasks.delete(once);
    task();
  };
  tasks.add(once);
  return once;
}

/** Runs every task still registered; one failing does not stop the others. */
export function cleanUpAll(): void {
  for (const task of [...tasks]) {
    try {
      task();
    } catch (error) {
      console.error(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
