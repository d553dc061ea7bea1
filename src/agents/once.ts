/**
 * `"once": true`: Claude Code runs such a hook once per session, then removes it (the other agents
 * have no such field). Each event is a separate routing process, so the first run claims a marker file (created
 * exclusively) named for the session and the hook, in a folder of the user's own; a later event
 * of the same session finds it and skips the hook. Deleting a marker only makes the hook run again.
 */
import { createHash } from "node:crypto";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hookKey } from "../approval/keys.js";
import type { RoutedHook } from "./dialect.js";

/** The folder of the markers (one per user). */
export function onceDir(): string {
  return join(tmpdir(), `hookbox-claude-once-${process.getuid?.() ?? "user"}`);
}

/** Whether `hook` runs for this event: always, unless it is a `once` hook that already ran in this session. */
export function claimOnce(hook: Pick<RoutedHook, "once" | "file" | "at" | "command">, input: Record<string, unknown>, dir = onceDir()): boolean {
  if (!hook.once) return true;
  const session = typeof input.session_id === "string" ? input.session_id : "";
  // The hook by its key (where it is defined) and its command: an edited `once` hook runs once more.
  const name = createHash("sha256").update(`${session}\0${hookKey(hook)}\0${hook.command}`).digest("hex");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // A folder someone else made (another user's, squatting the name) is not trusted to say "already ran".
    if (process.getuid && statSync(dir).uid !== process.getuid()) return true;
    writeFileSync(join(dir, name), "", { flag: "wx", mode: 0o600 });
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "EEXIST";
  }
}
