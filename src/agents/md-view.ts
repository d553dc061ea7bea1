/**
 * A project's markdown file of an agent (a skill, a command, a subagent: YAML frontmatter, then a
 * prompt) as a launcher shows it to the agent: without the frontmatter keys and the inline shell that
 * would run a command or widen what the agent may do. Which keys and which shell patterns is each
 * agent's table (Claude Code's: claude/skill-view.ts; opencode's: opencode/views.ts); the rest of the
 * file is kept byte for byte.
 */

/** YAML frontmatter as the agents read it: a first line `---`, up to the next `---` line. */
const FRONTMATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** A frontmatter key however it is spelled (Claude Code normalizes frontmatter keys: allowed_tools, allowedTools, quoted). */
export const spelled = (words: string[]): string => words.join("[-_ ]?");

/** What a view takes out of one kind of file: its frontmatter power keys (name → pattern), its inline shell (the agent's own patterns, global), and what stands in for a command. */
export interface MdPower { keys: Record<string, string>; shell: readonly RegExp[]; placeholder: string }

/** What a view leaves out: its frontmatter power keys' lines, its inline shell commands. */
export interface Removed { keys: string[]; shell: string[] }

/** `text` without the frontmatter keys of `kind` and its inline shell, and which it had; `removed`: the frontmatter lines and the inline commands it leaves out. */
export function withoutPower(text: string, kind: MdPower): { text: string; power: string[]; removed: Removed } {
  const power: string[] = [];
  const removed: Removed = { keys: [], shell: [] };
  let body = text;
  let front = "";
  const fm = FRONTMATTER.exec(text);
  if (fm) {
    front = fm[0];
    body = text.slice(fm[0].length);
    const found = Object.entries(kind.keys).filter(([, re]) => new RegExp(re, "i").test(fm[1]!));
    if (found.length > 0) {
      power.push(...found.map(([name]) => name));
      const anywhere = new RegExp(found.map(([, re]) => re).join("|"), "i");
      const key = new RegExp(`^["']?(?:${found.map(([, re]) => re).join("|")})["']?[ \t]*:`, "i");
      const lines = fm[1]!.split(/\r?\n/);
      const kept: string[] = [];
      for (let i = 0; i < lines.length; i++) {
        if (!key.test(lines[i]!)) { kept.push(lines[i]!); continue; }
        removed.keys.push(lines[i]!);
        // Its value's own lines: indented, or list items.
        while (i + 1 < lines.length && /^(?:[ \t]|-)/.test(lines[i + 1]!)) removed.keys.push(lines[++i]!);
      }
      // A spelling not removed line by line (a flow mapping, an anchor): the whole frontmatter goes.
      if (anywhere.test(kept.join("\n"))) { front = ""; removed.keys.push(fm[1]!); } else front = `---\n${kept.join("\n")}\n---\n`;
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
