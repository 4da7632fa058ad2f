/** What ioredis rejects a command with once `commandTimeout` has passed without an answer. */
const COMMAND_TIMED_OUT = 'Command timed out';

/** Whether a call failed for want of an answer in time (a hung Redis), not for a closed connection or an error reply. */
export function timedOut(error: unknown): boolean {
  return error instanceof Error && error.message === COMMAND_TIMED_OUT;
}
