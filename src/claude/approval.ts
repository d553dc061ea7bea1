/**
 * A project's Claude Code hook as the user approves it (`hookbox trust`): its key in the approvals
 * store is where it is defined (`<settings file>#hooks.<event>[i].hooks[j]`), and its fingerprint
 * pins what it runs: the event, matcher, `if` rule, command and timeout, every project file and folder the
 * command can reach as bash parses it (./command-pins.ts) and, for a file in a folder of its own
 * below the project root (`.claude/hooks/`), that folder whole (a script sources its siblings),
 * links followed to their content (src/approval/pins.ts). What the command reads by other means
 * from the (read-only) project is not pinned: docs/approvals.md.
 */
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { FingerprintError, PinReader, pinnedFingerprint, projectKey, type Fingerprint } from "../approval/store.js";
import { APPROVABLE_FORM, commandPins, type CommandPins } from "./command-pins.js";
import type { ClaudeHook } from "./settings.js";

/** The policy a project's Claude Code hook runs under. */
export const CLAUDE_PROJECT_POLICY = "untrusted";

/** The hook's key in the approvals store. */
export const claudeHookKey = (hook: Pick<ClaudeHook, "file" | "at">): string => `${hook.file}#${hook.at}`;

/**
 * What a project's hook's approval pins: the files and folders its command can run or read (src/claude/command-pins.ts),
 * and each named file's folder whole when it is below the project root (a script sources its siblings).
 */
export function claudeHookPins(project: string, hook: Pick<ClaudeHook, "command">): CommandPins {
  const root = projectKey(project);
  const pins = commandPins(root, hook.command, process.env.HOME);
  const folders = new Set([...pins.folders, ...pins.files.map(dirname)].filter((d) => d !== root && existsSync(d)));
  return { ...pins, folders: [...folders].sort() };
}

/** The files the command names that exist in the project, as bash reads it (the first is the hook's own file, where it has one). */
export function filesNamed(project: string, command: string): string[] {
  return claudeHookPins(project, { command }).files.filter((f) => existsSync(f));
}

/**
 * The fingerprint of a project's hook as it would run now; `reader` shares hashes between the hooks of one check.
 * A command that cannot be pinned as it stands throws a FingerprintError saying why and what form can be.
 */
export async function claudeHookFingerprint(project: string, hook: ClaudeHook, reader: PinReader = new PinReader()): Promise<Fingerprint> {
  const root = projectKey(project);
  const { files, folders, refusals } = claudeHookPins(root, hook);
  if (refusals.length > 0) throw new FingerprintError(`its command cannot be approved as it stands: ${refusals.join("; ")}; ${APPROVABLE_FORM}`);
  return pinnedFingerprint(claudeHookKey(hook), { event: hook.event, matcher: hook.matcher ?? null, command: hook.command, timeoutS: hook.timeoutS, ...(hook.if !== undefined ? { if: hook.if } : {}) }, { root, files, folders }, CLAUDE_PROJECT_POLICY, reader);
}
