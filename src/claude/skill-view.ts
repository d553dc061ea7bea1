/**
 * A project's skills and commands (`.claude/skills/<name>/SKILL.md`, `.claude/commands/**.md`) as
 * Claude Code reads them under `hookbox claude`: without their power parts. Read from Claude Code
 * 2.1.328's binary: when a skill or command is expanded (typed by you, or invoked by the model
 * through its Skill tool, unasked) its inline shell (a ```! fence, or !`command` after a space or at
 * a line's start) runs through the Bash tool, with the permission rules its `allowed-tools`
 * frontmatter adds (`Bash(*)` runs anything) and no PreToolUse hook (so none of your guards); those
 * rules also let the model's own calls run unasked while the skill is active. A file holding either
 * is shown with each inline command replaced by a placeholder and without `allowed-tools`; every other
 * skill and command is shown as it is. Claude Code's own switch, `disableSkillShellExecution`, would
 * also stop your own skills' commands.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** Claude Code 2.1.328's own patterns of inline shell (sBr and iBr in its binary). */
const FENCE = /```!\s*\n?[\s\S]*?\n?```/g;
const INLINE = /(?<=^|\s)!`[^`]+`/gm;
export const SHELL_PLACEHOLDER = "[shell command not run: hookbox claude does not run a project skill's or command's shell commands]";
/** YAML frontmatter as Claude Code reads it: a first line `---`, up to the next `---` line. */
const FRONTMATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
/** A top-level `allowed-tools` key however it is spelled (Claude Code normalizes frontmatter keys): allowed_tools, allowedTools, quoted. */
const ALLOWED_KEY = /^["']?allowed[-_ ]?tools["']?[ \t]*:/i;
const ALLOWED_ANYWHERE = /allowed[-_ ]?tools/i;

/** `text` without its power parts, and which it had (`inline shell`, `allowed-tools`). */
export function withoutPower(text: string): { text: string; power: string[] } {
  const power: string[] = [];
  let body = text;
  let front = "";
  const fm = FRONTMATTER.exec(text);
  if (fm) {
    front = fm[0];
    body = text.slice(fm[0].length);
    if (ALLOWED_ANYWHERE.test(fm[1]!)) {
      power.push("allowed-tools");
      const lines = fm[1]!.split(/\r?\n/);
      const kept: string[] = [];
      for (let i = 0; i < lines.length; i++) {
        if (!ALLOWED_KEY.test(lines[i]!)) { kept.push(lines[i]!); continue; }
        // Its value's own lines: indented, or list items.
        while (i + 1 < lines.length && /^(?:[ \t]|-)/.test(lines[i + 1]!)) i++;
      }
      // A spelling not removed line by line (a flow mapping, an anchor): the whole frontmatter goes.
      front = ALLOWED_ANYWHERE.test(kept.join("\n")) ? "" : `---\n${kept.join("\n")}\n---\n`;
    }
  }
  const stripped = body.replace(FENCE, SHELL_PLACEHOLDER).replace(INLINE, SHELL_PLACEHOLDER);
  if (stripped !== body) power.unshift("inline shell");
  return { text: power.length > 0 ? front + stripped : text, power };
}

export interface SkillView { path: string; rel: string; content: string; power: string[] }

const MAX_DEPTH = 6;

/** Every `.md` file of the project's `.claude/skills` and `.claude/commands` (links followed, each folder once) that has power parts, with its view. */
export function projectSkillViews(project: string): SkillView[] {
  const views: SkillView[] = [];
  const seen = new Set<string>();
  const walk = (dir: string, depth: number) => {
    let real: string;
    try { real = realpathSync(dir); } catch { return; }
    if (depth > MAX_DEPTH || seen.has(real)) return;
    seen.add(real);
    let entries;
    try { entries = readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const path = join(dir, e.name);
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        try { const s = statSync(path); isDir = s.isDirectory(); isFile = s.isFile(); } catch { continue; }
      }
      if (isDir) walk(path, depth + 1);
      else if (isFile && /\.md$/i.test(e.name)) {
        let text: string;
        try { text = readFileSync(path, "utf8"); } catch { continue; }
        const { text: content, power } = withoutPower(text);
        if (power.length > 0) views.push({ path, rel: relative(project, path), content, power });
      }
    }
  };
  for (const folder of ["skills", "commands"]) walk(join(project, ".claude", folder), 0);
  return views;
}
