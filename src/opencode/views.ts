/**
 * A project's opencode commands and agents as `hookbox opencode` shows them to opencode 1.18.33:
 * without what runs a command or widens what a tool may do. Read from its binary (ConfigMarkdown,
 * the config loader, SessionPrompt.command), and checked with runs of opencode alone:
 * - a command (`{command,commands}/**\/*.md` of a `.opencode` folder, or the `command` key's
 *   `template` in an `opencode.json(c)`): each `` !`…` `` in its template runs in your shell as you
 *   when the command is run (`/ship` typed, `opencode run --command ship`), its output put in the
 *   prompt; no permission asked, no plugin's `tool.execute.before` (so none of your guards) sees it.
 * - an agent (`{agent,agents}/**\/*.md`, `{mode,modes}/*.md`, the `agent` and `mode` keys): its
 *   `permission` (and the older `tools`, read as permissions) replaces your rules for that agent, a
 *   subagent the model spawns unasked through its task tool: `bash: allow` where you said `ask`.
 * Every other file and key is shown as it is; these are not approvable (`hookbox trust` does not
 * list them), as the project's other config power keys are not.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { withoutPower, withoutShell, type MdPower } from "../agents/md-view.js";

/** opencode's own pattern of inline shell (ConfigMarkdown.SHELL_REGEX): anywhere in a template. */
const SHELL = [/!`[^`]+`/g] as const;
export const OPENCODE_SHELL_PLACEHOLDER = "[shell command not run: hookbox opencode does not run a project command's shell commands]";

/** One kind of markdown file: the folders it is read from in a config folder (`deep`: their subfolders too), and its power parts. */
interface MdKind { folders: readonly string[]; deep: boolean; label: string; power: MdPower; why: string }
/** An agent's power keys as opencode reads them (no spellings normalized): each the pattern of one whole top-level key (agents/md-view.ts). */
const AGENT: MdPower = { keys: { permission: "permissions?", tools: "tools" }, shell: [], placeholder: OPENCODE_SHELL_PLACEHOLDER };
export const MD_KINDS: readonly MdKind[] = [
  { folders: ["command", "commands"], deep: true, label: "command", power: { keys: {}, shell: SHELL, placeholder: OPENCODE_SHELL_PLACEHOLDER }, why: "its shell commands would run as you, past your plugins and permissions, whenever it is run" },
  { folders: ["agent", "agents"], deep: true, label: "agent", power: AGENT, why: "the model spawns an agent unasked: its permission would replace yours for it" },
  { folders: ["mode", "modes"], deep: false, label: "agent", power: AGENT, why: "its permission would replace yours for it" },
];

/** A file shown to opencode without its power parts. */
export interface MdView { path: string; content: string; power: string[]; label: string; why: string }

/** Every `.md` file of config folder `dir` that opencode reads as a command or an agent and that has power parts, with its view. */
export function markdownViews(dir: string): MdView[] {
  const views: MdView[] = [];
  const walk = (kind: MdKind, folder: string, depth: number) => {
    let entries;
    try { entries = readdirSync(folder, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const path = join(folder, e.name);
      const s = e.isSymbolicLink() ? statSync(path, { throwIfNoEntry: false }) : e;
      if (!s) continue;
      if (s.isDirectory()) { if (kind.deep && depth < 8) walk(kind, path, depth + 1); continue; }
      if (!s.isFile() || !e.name.endsWith(".md")) continue;
      let text: string;
      try { text = readFileSync(path, "utf8"); } catch { continue; }
      const view = withoutPower(text, kind.power);
      if (view.power.length > 0) views.push({ path, content: view.text, power: view.power, label: kind.label, why: kind.why });
    }
  };
  for (const kind of MD_KINDS) for (const folder of kind.folders) walk(kind, join(dir, folder), 0);
  return views;
}

/** The keys of a project's config naming commands and agents whose power parts are taken out, as `[path, new value]` edits (undefined: removed), with what each was. */
export function configPowerEdits(config: Record<string, unknown>): { edits: Array<[Array<string>, unknown]>; named: string[] } {
  const edits: Array<[string[], unknown]> = [];
  const named: string[] = [];
  const entries = (k: string) => (typeof config[k] === "object" && config[k] !== null ? Object.entries(config[k] as Record<string, unknown>) : []);
  for (const top of ["agent", "mode"]) {
    for (const [name, agent] of entries(top)) {
      if (typeof agent !== "object" || agent === null) continue;
      for (const field of ["permission", "tools"]) {
        if ((agent as Record<string, unknown>)[field] === undefined) continue;
        edits.push([[top, name, field], undefined]);
        named.push(`${top}.${name}.${field}`);
      }
    }
  }
  for (const [name, command] of entries("command")) {
    const template = typeof command === "object" && command !== null ? (command as Record<string, unknown>).template : undefined;
    if (typeof template !== "string") continue;
    const { stripped, shell } = withoutShell(template, { shell: SHELL, placeholder: OPENCODE_SHELL_PLACEHOLDER });
    if (shell.length === 0) continue;
    edits.push([["command", name, "template"], stripped]);
    named.push(`command.${name}.template (inline shell)`);
  }
  return { edits, named };
}
