/** The exit codes of every command: 0 ok, 1 a hook failed (or was refused), 2 a usage error. */
export const EXIT = { ok: 0, hookErrors: 1, usage: 2 } as const;

/** A problem with how the command was called; `main` prints it with a hint and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
