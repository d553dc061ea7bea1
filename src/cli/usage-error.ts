/**
 * The CLI's usage error, in a module of its own: both the argument parsing (`usage.ts`) and the
 * scripted UI (`ui.ts`) throw it, and `usage.ts` imports `ui.ts`.
 */

/** A problem with how the command was called; `main` prints it with a hint and exits 2. */
export class UsageError extends Error {
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.name = "UsageError";
    this.command = command;
  }
}
