/**
 * A project's Claude Code hook as the user approves it (`hookbox trust`): its key in the approvals
 * store is where it is defined, and its fingerprint pins what it runs: the event, matcher, `if`
 * rule, command and timeout, every project file and folder the command can reach as bash parses it
 * and, for a file in a folder of its own below the project root (`.claude/hooks/`), that folder
 * whole (src/approval/command-hook.ts, as for every agent's command hook), links followed to their
 * content (src/approval/pins.ts). What the command reads by other means from the (read-only)
 * project is not pinned: docs/approvals.md.
 */
import { FingerprintError, PinReader, pinnedFingerprint, projectKey, type Fingerprint } from "../approval/store.js";
import { commandHookPins, PROJECT_HOOK_POLICY } from "../approval/command-hook.js";
import { hookKey } from "../approval/keys.js";
import type { Dialect } from "../agents/dialect.js";
import type { ClaudeHook } from "./settings.js";

/**
 * The fingerprint of a project's hook as it would run now, by Claude Code's row `d` (src/claude/dialect.ts: the project's variables, the approvable form); `reader` shares hashes between the hooks of one check.
 * A command that cannot be pinned as it stands throws a FingerprintError saying why and what form can be.
 */
export async function claudeHookFingerprint(d: Pick<Dialect, "projectDirVars" | "approvableForm">, project: string, hook: ClaudeHook, reader: PinReader = new PinReader()): Promise<Fingerprint> {
  const root = projectKey(project);
  const { files, folders, refusals } = commandHookPins(root, hook, d.projectDirVars);
  if (refusals.length > 0) throw new FingerprintError(`its command cannot be approved as it stands: ${refusals.join("; ")}; ${d.approvableForm}`);
  return pinnedFingerprint(hookKey(hook), { event: hook.event, matcher: hook.matcher ?? null, command: hook.command, timeoutS: hook.timeoutS, ...(hook.if !== undefined ? { if: hook.if } : {}) }, { root, files, folders }, PROJECT_HOOK_POLICY, reader);
}
