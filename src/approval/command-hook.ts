/**
 * A project's command hook (Claude Code's, Codex CLI's, Gemini CLI's) as the approvals store knows
 * it: its key is where it is defined (./keys.ts), it runs under one policy, and its approval pins
 * the files and folders its command can run or read, as bash parses it (./command-pins.ts), with
 * each named file's folder whole when it is below the project root (a script sources its siblings),
 * and the variables its definition sets (`env`: a loader's value names code). What each agent adds to the pinned definition is its row's
 * (src/claude/approval.ts, src/agents/command-hooks.ts).
 */
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { commandPins, type CommandPins } from "./command-pins.js";
import { projectKey } from "./store.js";

/** The policy a project's command hook runs under, whichever agent's (the sandbox holds it, not the policy's permissions). */
export const PROJECT_HOOK_POLICY = "untrusted";

/**
 * What a project's hook's approval pins: the files and folders its command can run or read, and each named file's folder whole when below the project root.
 * `projectVars`: the variables its agent names the project by (src/agents/dialect.ts `projectDirVars`).
 */
export function commandHookPins(project: string, hook: { command: string; env?: Readonly<Record<string, string>> }, projectVars: readonly string[]): CommandPins {
  const root = projectKey(project);
  const pins = commandPins(root, hook.command, process.env.HOME, projectVars, hook.env);
  const folders = new Set([...pins.folders, ...pins.files.map(dirname)].filter((d) => d !== root && existsSync(d)));
  // A package scope's package.json is pinned by content alone: its folder (the project's root, `.claude/`) holds what changes by itself.
  return { ...pins, files: [...pins.files, ...pins.manifests], folders: [...folders].sort() };
}

/** The files the command names that exist in the project, as bash reads it (the first is the hook's own file, where it has one). */
export function filesNamed(project: string, command: string, projectVars: readonly string[]): string[] {
  return commandHookPins(project, { command }, projectVars).files.filter((f) => existsSync(f));
}
