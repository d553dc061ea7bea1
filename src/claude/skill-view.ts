/**
 * A project's skills, commands and agents (`.claude/skills/<name>/SKILL.md`, `.claude/commands/**.md`,
 * `.claude/agents/**.md`) as Claude Code reads them under `hookbox claude`: without their power parts.
 * Read from Claude Code 2.1.328's binary:
 * - skills and commands: when one is expanded (typed by you, or invoked by the model through its
 *   Skill tool, unasked) its inline shell (a ```! fence, or !`command` after a space or at a line's
 *   start) runs through the Bash tool, with the permission rules its `allowed-tools` frontmatter adds
 *   (`Bash(*)` runs anything) and no PreToolUse hook (so none of your guards); those rules also let
 *   the model's own calls run unasked while the skill is active. Claude Code's own switch,
 *   `disableSkillShellExecution`, would also stop your own skills' commands.
 * - agents (its parser of an agent file's frontmatter): `permissionMode` becomes the mode of the
 *   subagent the model spawns unasked (`acceptEdits` edits without asking, `auto` lets a classifier
 *   decide in your place; `bypassPermissions` it refuses unless you are in it already);
 *   `mcpServers` may define a server inline, a program Claude Code starts when the agent runs.
 * - where: each kind from the `.claude` folder of the working folder and of every folder above it up
 *   to the git root (with no git root, up to your home, not included); skills also from every
 *   `.claude/skills` below the working folder that git does not ignore, which Claude Code loads
 *   during the session as soon as the model reads or edits a file under that folder (its nested
 *   discovery, on Read, Write and Edit), without asking.
 * A file holding any is shown without them until approved (./skill-approval.ts); every other file is shown as it is.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { ancestors, gitRoot } from "../policy/paths.js";
import { spelled, withoutPower as viewOf, type MdPower, type Removed } from "../agents/md-view.js";

export type { Removed };

/** Claude Code 2.1.328's own patterns of inline shell (sBr and iBr in its binary). */
const SHELL = [/```!\s*\n?[\s\S]*?\n?```/g, /(?<=^|\s)!`[^`]+`/gm] as const;
export const SHELL_PLACEHOLDER = "[shell command not run: hookbox claude does not run a project skill's or command's shell commands]";

/** What hookbox removes from each kind of file (./agents/md-view.ts: its frontmatter power keys, named as Claude Code's docs spell them, and its inline shell); `nested`: read below the working folder too. */
export interface Kind extends MdPower { folder: string; label: string; nested: boolean; why: string }
const shell = { shell: SHELL, placeholder: SHELL_PLACEHOLDER };
export const KINDS: readonly Kind[] = [
  { folder: "skills", label: "project skill", keys: { "allowed-tools": spelled(["allowed", "tools"]) }, ...shell, nested: true, why: "its shell commands would run as you, past your hooks, whenever it is expanded, and the model expands a skill unasked; allowed-tools lets tools run without asking" },
  { folder: "commands", label: "project command", keys: { "allowed-tools": spelled(["allowed", "tools"]) }, ...shell, nested: false, why: "its shell commands would run as you, past your hooks, whenever it is expanded; allowed-tools lets tools run without asking" },
  { folder: "agents", label: "project agent", keys: { permissionMode: spelled(["permission", "mode"]), mcpServers: spelled(["mcp", "servers"]) }, shell: [], placeholder: SHELL_PLACEHOLDER, nested: false, why: "the model spawns an agent unasked: its permissionMode would let its tools run without asking, its mcpServers start programs" },
];

/** `text` as Claude Code is shown it for `kind` (a skill by default). */
export const withoutPower = (text: string, kind: Kind = KINDS[0]!): { text: string; power: string[]; removed: Removed } => viewOf(text, kind);

/**
 * A file with power parts: `content` its view, `original` the file as read (shown when approved),
 * `removed` what the view leaves out; `root`: the tree it belongs to (the git root, else the folder
 * whose `.claude` holds it), which a link in it may not lead out of.
 */
export interface SkillView { path: string; rel: string; root: string; content: string; original: string; power: string[]; removed: Removed; kind: Kind }

const MAX_DEPTH = 6;

/** A `.claude` folder Claude Code reads `kinds` from, and the tree it belongs to. */
export interface ClaudeFolder { dir: string; kinds: readonly Kind[]; root: string }

/**
 * The `.claude` folders Claude Code 2.1.328 reads a project's skills, commands and agents from, for a
 * session started in `project` (its `getProjectDirsUpToHome` and nested skills discovery): every kind
 * from `project` and each folder above it up to the git root (up to your home, not included, when
 * there is none); the `nested` kinds from each folder below `project` not ignored by git (not
 * following links: a link inside the project leads to a folder this walk reaches by its own path,
 * whose view covers the link's target).
 */
export function claudeFolders(project: string): ClaudeFolder[] {
  const git = gitRoot(project);
  const home = homedir();
  const out: ClaudeFolder[] = [];
  for (const dir of ancestors(project)) {
    if (dir === home) break;
    out.push({ dir: join(dir, ".claude"), kinds: KINDS, root: git ?? dir });
    if (dir === git) break;
  }
  const nested = KINDS.filter((k) => k.nested);
  const ignored = gitIgnored(project);
  const walk = (dir: string) => {
    let entries;
    try { entries = readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      if (!e.isDirectory() || e.name === ".git") continue;
      const sub = join(dir, e.name);
      if (ignored.has(sub)) continue;
      if (e.name === ".claude") out.push({ dir: sub, kinds: nested, root: git ?? project });
      walk(sub);
    }
  };
  walk(project);
  return out;
}

/**
 * The folders below `project` that git ignores (Claude Code does not read their skills), as git
 * lists them; none where git cannot say (no repository, no git), so every folder is read. The
 * repository's `core.fsmonitor` would be a command git runs: it is switched off.
 */
function gitIgnored(project: string): Set<string> {
  const r = spawnSync("git", ["-c", "core.fsmonitor=false", "ls-files", "--others", "--ignored", "--exclude-standard", "--directory", "-z"], { cwd: project, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"] });
  if (r.status !== 0 || typeof r.stdout !== "string") return new Set();
  return new Set(r.stdout.split("\0").filter((p) => p.endsWith("/")).map((p) => join(project, p.slice(0, -1))));
}

/** Every `.md` file of the skills, commands and agents Claude Code reads for `project` (./claudeFolders; links followed, each folder once) that has power parts, with its view. */
export function projectSkillViews(project: string): SkillView[] {
  const views: SkillView[] = [];
  const walk = (kind: Kind, root: string, seen: Set<string>, dir: string, depth: number) => {
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
      if (isDir) walk(kind, root, seen, path, depth + 1);
      else if (isFile && /\.md$/i.test(e.name)) {
        let text: string;
        try { text = readFileSync(path, "utf8"); } catch { continue; }
        const { text: content, power, removed } = withoutPower(text, kind);
        if (power.length > 0) views.push({ path, rel: relative(project, path), root, content, original: text, power, removed, kind });
      }
    }
  };
  // Each kind its own set of folders seen: a folder linked from another kind's is read as this kind too.
  const seen = new Map(KINDS.map((k) => [k, new Set<string>()]));
  for (const { dir, kinds, root } of claudeFolders(project)) for (const kind of kinds) walk(kind, root, seen.get(kind)!, join(dir, kind.folder), 0);
  return views;
}
