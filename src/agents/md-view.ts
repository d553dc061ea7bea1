/**
 * A project's markdown file of an agent (a skill, a command, a subagent: YAML frontmatter, then a
 * prompt) as a launcher shows it to the agent: without the frontmatter keys and the inline shell that
 * would run a command or widen what the agent may do. Which keys and which shell patterns is each
 * agent's table (Claude Code's: claude/skill-view.ts; opencode's: opencode/views.ts); the rest of the
 * file is kept byte for byte.
 */
import { parseDocument } from "yaml";

/** YAML frontmatter as the agents read it: a first line `---`, up to the next `---` line. */
const FRONTMATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** A frontmatter key however it is spelled (Claude Code normalizes frontmatter keys: allowed_tools, allowedTools, quoted). */
export const spelled = (words: string[]): string => words.join("[-_ ]?");

/** What a view takes out of one kind of file: its frontmatter power keys (name → pattern), its inline shell (the agent's own patterns, global), and what stands in for a command. */
export interface MdPower { keys: Record<string, string>; shell: readonly RegExp[]; placeholder: string }

/** What a view leaves out: its frontmatter power keys' lines, its inline shell commands. */
export interface Removed { keys: string[]; shell: string[] }

/**
 * The top-level keys of a frontmatter as a YAML parser reads them (merge keys and aliases resolved),
 * or null when it is not readable as YAML.
 */
function yamlKeys(front: string): string[] | null {
  const doc = parseDocument(front, { merge: true });
  if (doc.errors.length > 0) return null;
  try {
    const js: unknown = doc.toJS();
    return js !== null && typeof js === "object" && !Array.isArray(js) ? Object.keys(js) : [];
  } catch { return null; }
}

/** The names of `kind`'s power keys among `keys`, however spelled. */
const powerKeys = (keys: string[], kind: MdPower): string[] =>
  Object.entries(kind.keys).filter(([, re]) => keys.some((k) => new RegExp(`^(?:${re})$`, "i").test(k.trim()))).map(([name]) => name);

/** Said in `power` when a frontmatter is not readable as YAML and may hold a power key: it is left out whole. */
export const UNREADABLE = "frontmatter not readable as YAML";

/**
 * `text` without the frontmatter keys of `kind` and its inline shell, and which it had; `removed`: the
 * frontmatter lines and the inline commands it leaves out. The frontmatter is read as YAML keys (a
 * description that only mentions a key's name keeps it all); one that is not readable as YAML and
 * names a power key anywhere, or whose view would still hold one, is left out whole.
 */
export function withoutPower(text: string, kind: MdPower): { text: string; power: string[]; removed: Removed } {
  const power: string[] = [];
  const removed: Removed = { keys: [], shell: [] };
  let body = text;
  let front = "";
  const fm = FRONTMATTER.exec(text);
  if (fm) {
    front = fm[0];
    body = text.slice(fm[0].length);
    const keys = yamlKeys(fm[1]!);
    const found = keys ? Object.entries(kind.keys).filter(([name]) => powerKeys(keys, kind).includes(name)) : Object.entries(kind.keys).filter(([, re]) => new RegExp(re, "i").test(fm[1]!));
    if (found.length > 0) {
      power.push(...found.map(([name]) => name));
      const key = new RegExp(`^["']?(?:${found.map(([, re]) => re).join("|")})["']?[ \t]*:`, "i");
      const lines = fm[1]!.split(/\r?\n/);
      const kept: string[] = [];
      for (let i = 0; i < lines.length; i++) {
        if (!key.test(lines[i]!)) { kept.push(lines[i]!); continue; }
        removed.keys.push(lines[i]!);
        // Its value's own lines: indented, or list items.
        while (i + 1 < lines.length && /^(?:[ \t]|-)/.test(lines[i + 1]!)) removed.keys.push(lines[++i]!);
      }
      // What is left must read as YAML without a power key (a flow mapping, a merge key, a spelling not
      // removed line by line): otherwise the whole frontmatter goes.
      const left = yamlKeys(kept.join("\n"));
      if (left === null || powerKeys(left, kind).length > 0) {
        front = "";
        removed.keys.splice(0, removed.keys.length, fm[1]!);
        if (left === null) power.push(UNREADABLE);
      } else front = `---\n${kept.join("\n")}\n---\n`;
    }
  }
  const { stripped, shell } = withoutShell(body, kind);
  removed.shell.push(...shell);
  if (shell.length > 0) power.unshift("inline shell");
  return { text: power.length > 0 ? front + stripped : text, power, removed };
}

/** `text` with each match of `kind.shell` (in order) replaced by its placeholder, and the commands replaced. */
export function withoutShell(text: string, kind: Pick<MdPower, "shell" | "placeholder">): { stripped: string; shell: string[] } {
  const shell: string[] = [];
  const cut = (found: string) => { shell.push(found.replace(/^```!|```$/g, "").replace(/^!`|`$/g, "").trim()); return kind.placeholder; };
  const stripped = kind.shell.reduce((t, re) => t.replace(re, cut), text);
  return { stripped, shell };
}
