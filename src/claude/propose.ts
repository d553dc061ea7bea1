/**
 * The grants a project's Claude Code hook will need, proposed by reading it (`hookbox trust`): its
 * command and the project files it names, as text, never run. A static read: it finds the common
 * shapes (a program called by name, a redirection or `mkdir` into a folder, a formatter given the
 * tool's `file_path`, JSON with `additionalContext`, a Stop hook's `exit 2` or added context, a
 * PermissionDenied hook's `retry`, a URL), not what a
 * script computes. What the sandbox refused the hook at run time (src/approval/needs.ts) is proposed too.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseGrant } from "../policy/grants.js";
import { SECRET_NAME } from "../policy/policy.js";
import { findOnPath } from "../policy/runtime.js";
import { filesNamed } from "../approval/command-hook.js";
import { CLAUDE_CODE } from "./dialect.js";
import type { ClaudeHook } from "./settings.js";

/** The sandbox's PATH (src/claude/project-run.ts): a program found there needs no grant. */
const SANDBOX_DIRS = ["/usr/local/bin", "/usr/bin", "/bin"];
const SHELL_WORDS = new Set(("if then else elif fi for while until do done case esac in function select time ! { } [ [[ ]] test echo printf read " +
  "cd exit return export local set unset shift source . eval exec true false trap wait command type declare readonly let builtin " +
  "break continue getopts umask ulimit pushd popd dirs alias unalias hash jobs fg bg kill").split(" "));
const CONTEXT_EVENTS = new Set(["UserPromptSubmit", "SessionStart", "Setup", "SubagentStart"]);
const FORMATTER = /\b(prettier|black|ruff|gofmt|goimports|rustfmt|eslint|biome|shfmt|clang-format|autopep8|isort|dprint|stylua|terraform)\b/;
const MAX_SCRIPT_BYTES = 256 * 1024;

const onSandboxPath = (name: string) => SANDBOX_DIRS.some((d) => { try { return statSync(join(d, name)).isFile(); } catch { return false; } });

/** The grants `hook` of `project` would need, by reading it; each in its one spelling. */
export function proposeGrants(project: string, hook: ClaudeHook, env: NodeJS.ProcessEnv = process.env): string[] {
  const texts = [hook.command];
  for (const file of filesNamed(project, hook.command, CLAUDE_CODE.projectDirVars)) {
    try { if (statSync(file).size <= MAX_SCRIPT_BYTES) texts.push(readFileSync(file, "utf8")); } catch { /* unreadable: the command alone */ }
  }
  const text = texts.join("\n");
  const out = new Set<string>();
  const add = (grant: string) => { try { out.add(parseGrant(grant, project).text); } catch { /* not grantable: the refusal will say why */ } };
  // Programs: the first word of each command (after `;`, `|`, `&&`, `$(`, a line start), not the shell's own.
  for (const m of text.matchAll(/(?:^|[;|&(`]|\$\(|\bthen\b|\bdo\b|\belse\b)\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*([A-Za-z][A-Za-z0-9._+-]*)(?=\s|$|;|\))/gm)) {
    const name = m[1]!;
    if (SHELL_WORDS.has(name) || onSandboxPath(name)) continue;
    if (findOnPath(name)) add(`exec:${name}`);
    // `npx x`, `uvx x`, `uv run x`: the runner is the program that must be there.
  }
  // Writes into a folder: `> dir/file`, `>> dir/file`, `tee [-a] dir/file`, `mkdir [-p] dir`.
  const relPath = (p: string) => p.replace(/^["']|["']$/g, "").replace(/^\$\{?CLAUDE_PROJECT_DIR\}?\/?/, "").replace(/^\.\//, "");
  for (const m of text.matchAll(/(?:[^0-9&]>>?|\btee\s+(?:-a\s+)?)\s*("?[^\s;|&)"]+"?)/g)) {
    const target = relPath(m[1]!);
    if (target.startsWith("/") || target.startsWith("&") || target.startsWith("$") || !target.includes("/")) continue;
    add(`write:${target.split("/").slice(0, -1).join("/")}`);
  }
  for (const m of text.matchAll(/\bmkdir\s+(?:-p\s+)?("?[^\s;|&)"]+"?)/g)) {
    const dir = relPath(m[1]!);
    if (!dir.startsWith("/") && !dir.startsWith("$")) add(`write:${dir}`);
  }
  if (hook.event === "PostToolUse" && /file_path/.test(text) && (FORMATTER.test(text) || /\b(sed\s+-i|perl\s+-pi)\b/.test(text))) add("write:tool-target");
  const stops = hook.event === "Stop" || hook.event === "SubagentStop";
  if ((!stops && /additionalContext/.test(text)) || /systemMessage/.test(text)) add("effects:annotate");
  if (CONTEXT_EVENTS.has(hook.event) && /^\s*(echo|printf|cat)\b(?![^\n]*>)/m.test(text)) add("effects:annotate");
  if (hook.event === "PermissionDenied" && /\bretry\b/.test(text)) add("effects:annotate");
  const blocks = /\bexit\s+2\b|"decision"\s*:\s*"block"|decision.{0,20}block/.test(text);
  // On Stop, added context keeps the agent going as a block does (src/claude/output-fields.ts).
  if ((blocks || /additionalContext/.test(text)) && stops) add("effects:continue");
  if (blocks && (hook.event === "PostToolUse" || hook.event === "PostToolUseFailure")) add("effects:annotate");
  for (const m of text.matchAll(/\bhttps?:\/\/([A-Za-z0-9.-]+)(?::(\d+))?/g)) add(`network:${m[1]}${m[2] ? `:${m[2]}` : m[0].startsWith("http:") ? ":80" : ""}`);
  // A variable of the user's environment the script reads, other than the ones the sandbox sets. A
  // secret-looking one is never proposed (so never in --grant proposed): only `--grant env:<NAME>` gives it.
  for (const m of text.matchAll(/\$\{?([A-Z][A-Z0-9_]*)\}?/g)) {
    const name = m[1]!;
    if (env[name] !== undefined && !SECRET_NAME.test(name) && !["PATH", "HOME", "CLAUDE_PROJECT_DIR", "LANG", "PWD", "USER", "SHELL", "TERM"].includes(name)) add(`env:${name}`);
  }
  return [...out].sort();
}
