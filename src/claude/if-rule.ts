/**
 * A hook's `if` condition, a Claude Code permission rule (`Bash(git *)`, `Edit(src/**)`): the hook
 * runs only for a tool call the rule matches. hookbox evaluates the forms below and refuses any
 * other by name when `hookbox claude` starts (never a guard silently skipped or run at every call):
 *
 * - `Tool` (or `Tool(*)`), `mcp__server`, `mcp__server__tool`, `mcp__server__*`: the tool's name.
 * - `Bash(pattern)`: `*` matches any text, a trailing ` *` also nothing (`git *` matches `git`),
 *   `prefix:*` the prefix as a word; matched against the whole command and each of its parts split
 *   at `&&`, `||`, `;`, `|` and newlines, so `rm -rf x && ls` is selected by `Bash(rm *)`.
 * - `Read(glob)`, `Edit(glob)` (Edit, MultiEdit, Write, NotebookEdit), `Write(glob)`: a gitignore-style
 *   glob (picomatch) on the call's file path: `//abs` absolute, `~/p` in the home folder, otherwise
 *   relative to the session's folder; a glob without `/` matches the name at any depth.
 * - `WebFetch(domain:host)`: the URL's host is `host` or below it.
 */
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { below } from "../gates/inside.js";
import picomatch from "picomatch";

export type IfRule =
  | { kind: "tool"; tool: string; prefix?: string }
  | { kind: "bash"; test: (command: string) => boolean }
  | { kind: "path"; tools: readonly string[]; glob: string }
  | { kind: "domain"; host: string };

const EDIT_TOOLS = ["Edit", "MultiEdit", "Write", "NotebookEdit"] as const;
const PATH_TOOLS: Record<string, readonly string[]> = { Read: ["Read"], Edit: EDIT_TOOLS, Write: ["Write"] };

/** The rule `text` as hookbox evaluates it, or why it cannot. */
export function parseIfRule(text: string): IfRule | { error: string } {
  const m = /^([A-Za-z_][\w*-]*)(?:\((.*)\))?$/s.exec(text.trim());
  if (!m) return { error: `"${text}" is not a permission rule (Tool or Tool(content))` };
  const [, tool, content] = m as unknown as [string, string, string | undefined];
  if (content === undefined || content === "*") {
    // mcp__server and mcp__server__* name every tool of the server.
    const server = /^mcp__(.+?)(?:__\*)?$/.exec(tool);
    if (server && !server[1]!.includes("__")) return { kind: "tool", tool, prefix: `mcp__${server[1]}__` };
    return { kind: "tool", tool };
  }
  if (tool === "Bash") return { kind: "bash", test: bashTest(content) };
  if (PATH_TOOLS[tool]) return { kind: "path", tools: PATH_TOOLS[tool]!, glob: content };
  if (tool === "WebFetch" && content.startsWith("domain:")) return { kind: "domain", host: content.slice(7).toLowerCase() };
  return { error: `the "if" rule "${text}" is not a form hookbox evaluates (Tool, Bash(…), Read(…), Edit(…), Write(…), WebFetch(domain:…), mcp__…)` };
}

function bashTest(pattern: string): (command: string) => boolean {
  if (pattern.endsWith(":*")) {
    const prefix = pattern.slice(0, -2);
    return (c) => c === prefix || c.startsWith(`${prefix} `);
  }
  const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[\\s\\S]*");
  const source = pattern.endsWith(" *") ? `${escape(pattern.slice(0, -2))}(?: [\\s\\S]*)?` : escape(pattern);
  const re = new RegExp(`^${source}$`);
  return (c) => re.test(c);
}

/** Whether `rule` selects the tool call of `input` (a PreToolUse-like event's input). */
export function ifRuleSelects(rule: IfRule, input: Record<string, unknown>): boolean {
  const tool = typeof input.tool_name === "string" ? input.tool_name : undefined;
  if (tool === undefined) return false;
  const args = (typeof input.tool_input === "object" && input.tool_input !== null ? input.tool_input : {}) as Record<string, unknown>;
  switch (rule.kind) {
    case "tool":
      return tool === rule.tool || (rule.prefix !== undefined && tool.startsWith(rule.prefix));
    case "bash": {
      if (tool !== "Bash" || typeof args.command !== "string") return false;
      const command = args.command.trim();
      return [command, ...command.split(/&&|\|\||;|\||\n/)].some((part) => rule.test(part.trim()));
    }
    case "path": {
      const file = typeof args.file_path === "string" ? args.file_path : typeof args.notebook_path === "string" ? args.notebook_path : undefined;
      if (!rule.tools.includes(tool) || file === undefined) return false;
      return pathMatches(rule.glob, file, typeof input.cwd === "string" ? input.cwd : process.cwd());
    }
    case "domain": {
      if (tool !== "WebFetch" || typeof args.url !== "string") return false;
      try {
        const host = new URL(args.url).hostname.toLowerCase();
        return host === rule.host || host.endsWith(`.${rule.host}`);
      } catch {
        return false;
      }
    }
  }
}

function pathMatches(glob: string, file: string, cwd: string): boolean {
  const absolute = isAbsolute(file) ? file : resolve(cwd, file);
  if (glob.startsWith("//")) return picomatch.isMatch(absolute, glob.slice(1), { dot: true });
  if (glob.startsWith("~/")) return picomatch.isMatch(absolute, resolve(process.env.HOME || homedir(), glob.slice(2)), { dot: true });
  const rel = below(cwd, absolute);
  if (rel === undefined) return false;
  const pattern = glob.replace(/^\.?\//, "");
  return picomatch.isMatch(rel, pattern, { dot: true, basename: !pattern.includes("/") });
}
