/**
 * What a project's file gives an agent beyond its hooks — settings keys that run a command or skip a
 * confirmation, an env file whose variables reach every command, rules that let commands run
 * unasked, a skill's inline shell — as one approval per file (`<file>#power`), whichever agent reads
 * it: Claude Code (src/claude/power.ts, src/claude/skill-approval.ts), Gemini CLI, Codex CLI and
 * opencode (the rows of src/cli/power-items.ts). The approval pins what the item grants (the keys'
 * values, or the file's content when the agent is shown it whole) and every project file the
 * commands among them can run, as bash parses them (./command-pins.ts): a script that changes asks
 * again. Approved and unchanged, the agent reads the file as it is; otherwise without them.
 */
import { createHash } from "node:crypto";
import { dirname, relative } from "node:path";
import { existsSync } from "node:fs";
import { commandHookPins, filesNamed, PROJECT_HOOK_POLICY } from "./command-hook.js";
import { FingerprintError, type Fingerprint } from "./fingerprint.js";
import { pinnedFingerprint, PinReader } from "./pins.js";
import { powerKey } from "./keys.js";
import { projectKey } from "./project.js";
import type { ApprovalStore } from "./store.js";

export interface PowerItem {
  /** The file as found: the agent reads it there. */
  file: string;
  /** How `hookbox trust` names it: `Gemini CLI (.gemini/.env, env file: BASH_ENV, APP_MODE)`. */
  origin: string;
  /** What it is in a refusal: "a Gemini CLI env file". */
  noun: string;
  /** What the approval pins besides files (the keys and their values, or what a whole file has). */
  subject: unknown;
  /** The file's content as read, when an approval shows it whole: pinned by content, and the content shown must be the content hashed. */
  original?: string;
  /**
   * Command lines it runs, each with the variables it sets for them (an MCP server's `env`, an env
   * file's variables: a loader's value, BASH_ENV, NODE_OPTIONS, PATH, …, pins the project files it
   * names): every project file and folder each can run is pinned; one whose files are known only when
   * it runs cannot be approved as it stands.
   */
  commands?: Array<{ command: string; env?: Record<string, string> }>;
  /** Texts that may name a file (a value, a permission rule): each project file named is pinned, nothing refused. */
  mentions?: string[];
  /** The variables the agent names the project by, for the parse. */
  projectVars: readonly string[];
  /** What it grants, one line each, exactly (each value as JSON: no control character reaches the terminal). */
  shows: string[];
}

/** The key of a file's power item in the approvals store (ONE per file, whichever agent). */
export { powerKey };

/** Each value of `values` as `key = <json>`, one line each. */
export const showValues = (values: Record<string, unknown>): string[] => Object.entries(values).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);

/** Every string inside `v` (a value's leaves). */
export const strings = (v: unknown): string[] => (typeof v === "string" ? [v] : typeof v === "object" && v !== null ? Object.values(v).flatMap(strings) : []);

/** What `item`'s approval pins besides its subject: its file when whole, and what its commands, env and mentions name; why it cannot be approved, if it cannot. */
export function powerItemPins(project: string, item: PowerItem): { files: string[]; folders: string[]; refusals: string[] } {
  const root = projectKey(project);
  const files = new Set<string>(item.original !== undefined ? [item.file] : []);
  const folders = new Set<string>();
  const refusals: string[] = [];
  const add = (command: string, env?: Record<string, string>) => {
    const pins = commandHookPins(project, { command, ...(env ? { env } : {}) }, item.projectVars);
    for (const f of pins.files) files.add(f);
    for (const f of pins.folders) folders.add(f);
    refusals.push(...pins.refusals.map((r) => `\`${command}\`: ${r}`));
  };
  for (const c of item.commands ?? []) add(c.command, c.env);
  for (const t of item.mentions ?? []) {
    try { for (const f of filesNamed(root, t, item.projectVars)) files.add(f); } catch { /* a text that is not a command names nothing */ }
  }
  // A file's own folder is not pinned whole for it (a `.gemini/` folder changes by itself).
  const own = item.original !== undefined ? dirname(item.file) : undefined;
  return { files: [...files], folders: [...folders].filter((f) => f !== own && existsSync(f)).sort(), refusals };
}

/** The fingerprint of `item` as it is now; a FingerprintError when it cannot be approved as it stands. */
export function powerItemFingerprint(project: string, item: PowerItem, reader: PinReader = new PinReader()): Promise<Fingerprint> {
  const root = projectKey(project);
  const { files, folders, refusals } = powerItemPins(project, item);
  if (refusals.length > 0) return Promise.reject(new FingerprintError(`${refusals.join("; ")}: name a script of the project instead`));
  return pinnedFingerprint(powerKey(item.file), item.subject, { root, files, folders }, PROJECT_HOOK_POLICY, reader);
}

/** What the approval pins, for `hookbox trust`'s `pins:` line. */
export function powerItemScope(project: string, item: PowerItem): string {
  const { folders } = powerItemPins(project, item);
  const what = item.original !== undefined ? "the file's content" : "these keys and their values";
  return `${what}; the project files below${folders.length > 0 ? `, with ${folders.map((f) => relative(projectKey(project), f)).join(", ")} whole` : ""}; a link by its text and by the content it leads to`;
}

/**
 * `approved`: the store approves `item` as it is now (for a whole file: the content the agent will
 * be shown is the content hashed); `changed`: approved once, not as it is now. A store that cannot
 * be read, or an item that cannot be pinned, approves nothing.
 */
export async function powerItemApproval(store: ApprovalStore, project: string, item: PowerItem): Promise<{ approved: boolean; changed: boolean }> {
  const key = powerKey(item.file);
  try {
    if (store.read().projects[projectKey(project)]?.modules[key] === undefined) return { approved: false, changed: false };
  } catch {
    return { approved: false, changed: false };
  }
  const changed = { approved: false, changed: true };
  try {
    const fp = await powerItemFingerprint(project, item);
    if (item.original !== undefined) {
      const sha = createHash("sha256").update(item.original).digest("hex");
      if (!Object.entries(fp.files).some(([k, v]) => (k === item.file || k.startsWith(`${item.file} -> `)) && v === sha)) return changed;
    }
    const refused = await store.checkPinned(project, { path: key, policy: PROJECT_HOOK_POLICY, pinned: async () => fp, noun: item.noun });
    return refused === undefined ? { approved: true, changed: false } : changed;
  } catch {
    return changed;
  }
}
