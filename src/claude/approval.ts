/**
 * A project's Claude Code hook as the user approves it (`hookbox trust`): its key in the approvals
 * store is where it is defined (`<settings file>#hooks.<event>[i].hooks[j]`), and its fingerprint
 * pins what it runs: the event, matcher, command and timeout, every project file the command names
 * (after `$CLAUDE_PROJECT_DIR` is expanded) and, for a file in a folder of its own below the
 * project root (`.claude/hooks/`), that folder whole (a script sources its siblings). What the
 * command reads by other means from the (read-only) project is not pinned: docs/claude-code.md.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import type { HookFailure } from "../contract/errors.js";
import { ApprovalStore, PinReader, pinnedFingerprint, projectKey, type Fingerprint, type StoreData } from "../approval/store.js";
import type { ClaudeHook } from "./settings.js";

/** The policy a project's Claude Code hook runs under. */
export const CLAUDE_PROJECT_POLICY = "untrusted";

/** The hook's key in the approvals store. */
export const claudeHookKey = (hook: Pick<ClaudeHook, "file" | "at">): string => `${hook.file}#${hook.at}`;

/** The project files `command` names: words that are paths to existing files inside the project. */
export function filesNamed(project: string, command: string): string[] {
  const root = projectKey(project);
  const expanded = command.replace(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR/g, root);
  // Quotes join words in the shell ("$CLAUDE_PROJECT_DIR"/.claude/x.sh is one word): drop them, then split.
  const words = expanded.replace(/["']/g, "").split(/[\s;|&<>()`]+/).filter(Boolean);
  const files = new Set<string>();
  for (const word of words) {
    const path = isAbsolute(word) ? word : resolve(root, word);
    const rel = relative(root, path);
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
    if (existsSync(path) && statSync(path).isFile()) files.add(path);
  }
  return [...files].sort();
}

/** The fingerprint of a project's hook as it would run now; `reader` shares hashes between the hooks of one check. */
export function claudeHookFingerprint(project: string, hook: ClaudeHook, reader: PinReader = new PinReader()): Promise<Fingerprint> {
  const root = projectKey(project);
  const files = filesNamed(root, hook.command);
  const folders = [...new Set(files.map(dirname).filter((d) => d !== root))];
  return pinnedFingerprint(claudeHookKey(hook), { event: hook.event, matcher: hook.matcher ?? null, command: hook.command, timeoutS: hook.timeoutS }, { root, files, folders }, CLAUDE_PROJECT_POLICY, reader);
}

/**
 * The approval check of each of a project's hooks for one event (or one launch): the store read
 * once, an unapproved hook refused before anything is pinned, every file hashed once whichever
 * hooks name it, within one budget for the project (src/approval/pins.ts), stopped by `signal`.
 */
export function checkProjectHooks(project: string, hooks: readonly ClaudeHook[], options: { approvals?: string; signal?: AbortSignal } = {}): Array<Promise<HookFailure | undefined>> {
  const store = new ApprovalStore(options.approvals ? { dir: options.approvals } : {});
  let data: StoreData | undefined;
  try {
    data = store.read();
  } catch { /* each check reports the corrupt store by name */ }
  const reader = new PinReader(options.signal ? { signal: options.signal } : {});
  return hooks.map((hook) => store.checkPinned(project, { path: claudeHookKey(hook), policy: CLAUDE_PROJECT_POLICY, noun: "a Claude Code hook", pinned: () => claudeHookFingerprint(project, hook, reader) }, data));
}
