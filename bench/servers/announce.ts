/**
 * The contract between a bench child process and bench/child-server.ts: print the listening URL
 * as one JSON line on stdout, then shut down cleanly on SIGTERM. A clean exit matters because
 * `--cpu-prof` only writes its profile when the process exits normally.
 */
export function announce(url: string, close: () => Promise<void>): void {
  process.stdout.write(`${JSON.stringify({ url })}\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`bench child: error while closing: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // The parent going away (even by SIGKILL) closes this pipe; never outlive it.
  process.stdin.on('end', stop);
  process.stdin.resume();
}

/** Exits with a message when startup fails, so the parent sees why instead of a timeout. */
export function failStartup(error: unknown): never {
  process.stderr.write(`bench child: could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
