/**
 * Claude Code's hooks settings, as Claude Code 2.1.328 reads them (`.claude/settings.json`,
 * `.claude/settings.local.json`, `~/.claude/settings.json`): `hooks` maps an event name to matcher
 * groups, each with a `matcher` and its hooks. Parsed with zod; what hookbox cannot run as Claude
 * Code would is kept as `refused` with the reason, never dropped silently. The matching rules are
 * Claude Code's own (read from the 2.1.328 binary; docs/claude-code.md).
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { z } from "zod";
import { hookAt } from "../approval/keys.js";
import { ifRuleSelects, parseIfRule } from "./if-rule.js";

/** Every hook event of Claude Code 2.1.328, in its own order. */
export const CLAUDE_HOOK_EVENTS = [
  "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification", "UserPromptSubmit",
  "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
  "PreCompact", "PostCompact", "PreModelSwitch", "PostModelSwitch", "PermissionRequest", "PermissionDenied",
  "Setup", "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange",
  "WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged", "DirectoryAdded", "MessageDisplay",
] as const;
export type ClaudeHookEvent = (typeof CLAUDE_HOOK_EVENTS)[number];
export const isClaudeHookEvent = (name: string): name is ClaudeHookEvent => (CLAUDE_HOOK_EVENTS as readonly string[]).includes(name);

/** The input field a matcher is tested against, per event; an event not listed ignores its matcher (every group matches). */
export const MATCHER_FIELD: Partial<Record<ClaudeHookEvent, string>> = {
  PreToolUse: "tool_name", PostToolUse: "tool_name", PostToolUseFailure: "tool_name", PermissionRequest: "tool_name", PermissionDenied: "tool_name",
  UserPromptExpansion: "command_name", SessionStart: "source", Setup: "trigger", PreCompact: "trigger", PostCompact: "trigger",
  PreModelSwitch: "to_model", PostModelSwitch: "to_model", Notification: "notification_type", SessionEnd: "reason", StopFailure: "error",
  SubagentStart: "agent_type", SubagentStop: "agent_type", Elicitation: "mcp_server_name", ElicitationResult: "mcp_server_name",
  ConfigChange: "source", DirectoryAdded: "source", InstructionsLoaded: "load_reason", FileChanged: "file_path",
};

/** Events whose name-list matchers may also be separated by commas and spaces (Claude Code's `U6` set). */
const NAME_LIST_EVENTS = new Set<ClaudeHookEvent>([
  "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied", "UserPromptExpansion", "SessionStart",
  "SessionEnd", "Setup", "PreCompact", "PostCompact", "PreModelSwitch", "PostModelSwitch", "Notification", "SubagentStart", "SubagentStop",
  "Elicitation", "ElicitationResult", "ConfigChange", "InstructionsLoaded", "DirectoryAdded",
]);

/** Claude Code's default deadline of a command hook, in seconds. */
export const DEFAULT_TIMEOUT_S = 600;

const commandHookSchema = z.object({
  type: z.literal("command"),
  command: z.string().min(1),
  timeout: z.number().positive().optional(),
  shell: z.enum(["bash", "powershell"]).optional(),
  statusMessage: z.string().optional(),
  once: z.boolean().optional(),
  async: z.boolean().optional(),
  asyncRewake: z.boolean().optional(),
  if: z.string().optional(),
}).strict();
/** A hook of another type (prompt, agent, http, mcp_tool): Claude Code runs it itself; hookbox does not. */
const otherHookSchema = z.object({ type: z.string() }).passthrough();
const matcherGroupSchema = z.object({ matcher: z.string().optional(), hooks: z.array(z.unknown()) }).passthrough();
/** The part of a settings file hookbox reads; every other setting passes through untouched. */
export const claudeSettingsSchema = z.object({
  hooks: z.record(z.string(), z.array(matcherGroupSchema)).optional(),
  disableAllHooks: z.boolean().optional(),
}).passthrough();

/** Where a settings file comes from: the user's, the project's (shared), or the project's local one. */
export type ClaudeSettingsSource = "user" | "project" | "local";

/** One hook of a settings file, where it is and what it runs. */
export interface ClaudeHook {
  source: ClaudeSettingsSource;
  file: string;
  event: ClaudeHookEvent;
  matcher?: string;
  /** Where in the file: `hooks.<event>[group].hooks[index]`. */
  at: string;
  command: string;
  /** Deadline in seconds (Claude Code's default when the file gives none). */
  timeoutS: number;
  /** A permission rule the tool call must match for the hook to run (if-rule.ts). */
  if?: string;
  /** Runs once per session. */
  once?: true;
  /** What Claude Code's spinner says while the hook runs. */
  statusMessage?: string;
}

/** A hook hookbox will not run, and why (reported; on PreToolUse a matching one blocks). */
export interface RefusedHook {
  source: ClaudeSettingsSource;
  file: string;
  event: string;
  matcher?: string;
  at: string;
  reason: string;
  /** `hookbox claude` does not start while the hook is there (an `if` rule it cannot evaluate). */
  fatal?: true;
}

export interface ParsedSettings {
  /** The file's settings, hooks included, or `{}` when the file does not exist. */
  settings: Record<string, unknown>;
  hooks: ClaudeHook[];
  refused: RefusedHook[];
  /** Problems with the file as a whole (not JSON, not an object). */
  problems: string[];
}

/** Parse one settings file's text. */
export function parseClaudeSettings(text: string, file: string, source: ClaudeSettingsSource): ParsedSettings {
  const out: ParsedSettings = { settings: {}, hooks: [], refused: [], problems: [] };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    out.problems.push(`${file} is not JSON (${(err as Error).message})`);
    return out;
  }
  const parsed = claudeSettingsSchema.safeParse(data);
  if (!parsed.success) {
    out.problems.push(`${file} is not a settings object: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
    return out;
  }
  out.settings = parsed.data as Record<string, unknown>;
  for (const [event, groups] of Object.entries(parsed.data.hooks ?? {})) {
    groups.forEach((group, g) => {
      group.hooks.forEach((raw, h) => {
        const at = hookAt(event, g, h);
        const refuse = (reason: string, fatal?: true) => out.refused.push({ source, file, event, ...(group.matcher !== undefined ? { matcher: group.matcher } : {}), at, reason, ...(fatal ? { fatal } : {}) });
        if (!isClaudeHookEvent(event)) return refuse(`"${event}" is not an event of Claude Code 2.1.328`);
        const command = commandHookSchema.safeParse(raw);
        if (command.success) {
          const c = command.data;
          if (c.async || c.asyncRewake) return refuse("an async hook runs after Claude Code moved on; hookbox runs a hook only while the event waits for it");
          if (c.shell === "powershell") return refuse('"shell": "powershell" is not supported by hookbox');
          if (c.if !== undefined) {
            if (MATCHER_FIELD[event] !== "tool_name") return refuse(`its "if" rule "${c.if}" is on ${event}, which has no tool call to match`, true);
            const rule = parseIfRule(c.if);
            if ("error" in rule) return refuse(rule.error, true);
          }
          out.hooks.push({
            source, file, event, ...(group.matcher !== undefined ? { matcher: group.matcher } : {}), at, command: c.command, timeoutS: c.timeout ?? DEFAULT_TIMEOUT_S,
            ...(c.if !== undefined ? { if: c.if } : {}), ...(c.once ? { once: true as const } : {}), ...(c.statusMessage !== undefined ? { statusMessage: c.statusMessage } : {}),
          });
          return;
        }
        const other = otherHookSchema.safeParse(raw);
        if (other.success && other.data.type !== "command") return refuse(`a "${other.data.type}" hook is run by Claude Code itself, not by hookbox, which runs command hooks only`);
        refuse(`not a hook Claude Code accepts: ${command.error.issues.map((i) => `${i.path.join(".") || "(hook)"}: ${i.message}`).join("; ")}`);
      });
    });
  }
  return out;
}

/** Read and parse a settings file; a missing file is empty. */
export function readClaudeSettings(file: string, source: ClaudeSettingsSource): ParsedSettings {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { settings: {}, hooks: [], refused: [], problems: [] };
    return { settings: {}, hooks: [], refused: [], problems: [`${file} cannot be read (${code ?? String(err)})`] };
  }
  return parseClaudeSettings(text, file, source);
}

/** The value an event's matcher is tested against, or undefined when its matchers are ignored. */
export function matchValue(event: ClaudeHookEvent, input: Record<string, unknown>): string | undefined {
  const field = MATCHER_FIELD[event];
  if (field === undefined) return undefined;
  const value = input[field];
  if (typeof value !== "string") return undefined;
  return event === "FileChanged" ? basename(value) : value;
}

/**
 * Whether `matcher` selects `value` by Claude Code's rules: no matcher, `""` or `"*"` selects all;
 * a matcher of only letters, digits, `_` and `|` (on name-list events also `,`, `-` and spaces) is a
 * list of exact names; anything else is a JavaScript regular expression, tested unanchored; an
 * invalid one selects nothing. An event without a matcher value ignores its matchers.
 */
export function matcherSelects(event: ClaudeHookEvent, matcher: string | undefined, value: string | undefined): boolean {
  if (value === undefined || !matcher || matcher === "*") return true;
  const nameList = NAME_LIST_EVENTS.has(event);
  if ((nameList ? /^[a-zA-Z0-9_|, -]+$/ : /^[a-zA-Z0-9_|]+$/).test(matcher)) {
    return matcher.split(nameList ? /[|,]/ : "|").map((n) => n.trim()).filter(Boolean).includes(value);
  }
  try {
    return new RegExp(matcher).test(value);
  } catch {
    return false;
  }
}

/** The hooks (and refused hooks) that an event's input selects: by matcher, then by `if` rule. */
export function selectHooks<T extends { event: string; matcher?: string; if?: string }>(hooks: readonly T[], event: ClaudeHookEvent, input: Record<string, unknown>): T[] {
  const value = matchValue(event, input);
  return hooks.filter((h) => h.event === event && matcherSelects(event, h.matcher, value) && ifSelects(h.if, input));
}

function ifSelects(text: string | undefined, input: Record<string, unknown>): boolean {
  if (text === undefined) return true;
  const rule = parseIfRule(text);
  // A rule that cannot be evaluated never reaches a plan (the launcher refuses to start); if one does, the hook runs.
  return "error" in rule ? true : ifRuleSelects(rule, input);
}
