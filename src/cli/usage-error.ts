/** A problem with how the command was called; `main` prints it with a hint and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
