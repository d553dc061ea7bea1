/**
 * A project's Codex skills as `hookbox codex` shows them to Codex CLI 0.169.0: each skill's
 * `agents/openai.yaml` (its metadata file, beside SKILL.md) without its `dependencies`. Checked with
 * the binary (a run of Codex alone against the fake model, the skill mentioned as `$deploy`): as a
 * first-party client (the terminal UI) in full-access mode (`--yolo`) Codex writes each MCP server a
 * mentioned skill depends on into your own `~/.codex/config.toml`, unasked, and starts it (a stdio
 * one is a command of the project's, started in every later session, of every project); in other
 * modes it asks "Install MCP servers?", naming the server, not its command (feature
 * `skill_mcp_dependency_install`, on by default). Nothing else of a skill runs or widens anything:
 * SKILL.md reaches the model as text (a `` !`…` `` in it is not run; no frontmatter key grants a
 * permission), and the model runs a skill's scripts through its shell tool, under your approvals.
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

/** The skills folders Codex reads in a project folder (`.agents/skills`, and the older `.codex/skills`). */
export const CODEX_SKILL_ROOTS = [".agents/skills", ".codex/skills"] as const;
/** The top-level keys of a metadata file kept in the view: what a skill looks like and whether the model may pick it unasked; `dependencies` (MCP servers Codex installs) is not. */
const KEPT = /^(?:interface|policy)[ \t]*:/;

/** Every skill metadata file under the skills folders of `dirs` (project folders), skills nested up to 6 deep, links followed. */
export function codexSkillMetadata(dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try { names = readdirSync(dir); } catch { return; }
    for (const name of names) {
      const path = join(dir, name);
      if (name === "agents" && statSync(join(path, "openai.yaml"), { throwIfNoEntry: false })?.isFile()) out.push(join(path, "openai.yaml"));
      else if (depth < 6 && statSync(path, { throwIfNoEntry: false })?.isDirectory()) walk(path, depth + 1);
    }
  };
  for (const dir of dirs) for (const root of CODEX_SKILL_ROOTS) walk(join(dir, root), 0);
  return [...new Set(out)];
}

/**
 * `text` (an `agents/openai.yaml`) with only its top-level `interface` and `policy` blocks, as
 * written; `changed` when anything else was there. An allowlist, not the removal of one key: YAML
 * spells a key many ways (quoted, escaped, a flow mapping, a merge), and each would be Codex's.
 */
export function skillMetadataView(text: string): { content: string; changed: boolean } {
  const lines = text.split(/\r?\n/);
  const kept: string[] = [];
  let keep = false;
  for (const line of lines) {
    if (/^\S/.test(line) && !line.startsWith("#")) keep = KEPT.test(line);
    if (keep || /^\s*(?:#.*)?$/.test(line)) kept.push(line);
  }
  const content = kept.join("\n");
  return { content, changed: content.trim() !== text.replace(/\r\n/g, "\n").trim() };
}

/** `dirname` of a metadata file's skill: its folder, for messages. */
export const skillOf = (metadata: string): string => dirname(dirname(metadata));
