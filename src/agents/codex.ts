/**
 * Codex CLI's hook contract, read from @openai/codex 0.169.0 (its Rust binary's hook wire types and
 * checked against it: test/e2e-codex-gemini.test.ts): `hooks.json` (or `[hooks]` in config.toml) beside
 * each config layer maps Claude Code's event names to groups `{ matcher, hooks: [{ type:
 * "command", command, timeout (s, default 600) }] }`; a tool's matcher is a regular expression on
 * `tool_name` (the shell tool is `Bash`, its input `{ command }`). Exit 0 prints JSON or nothing;
 * exit 2 with a non-empty stderr blocks with it as the reason; anything else lets the call run.
 * An admin's /etc/codex/requirements.toml may set `allow_managed_hooks_only` and its own `[hooks]`:
 * then Codex runs those only. docs/codex.md.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import type { AgentHook, RefusedAgentHook } from "./dialect.js";
import { mergeDecisions, permissionRequestDecision } from "./answer.js";
import { commandDialect } from "./command-hooks.js";
import { readHookTable } from "./settings.js";

/** Every event Codex CLI 0.169.0 has a command hook's schema for (test/codex-output-fields.test.ts reads them from its binary); Interrupt: the user stopped a turn, its answer only a systemMessage. */
export const CODEX_EVENTS = [
  "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact", "SessionStart", "SessionEnd",
  "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop", "Interrupt",
] as const;

const record = z.record(z.string(), z.unknown());
const codexOutputSchema = z.strictObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  decision: z.enum(["approve", "block"]).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z.strictObject({
    hookEventName: z.enum(CODEX_EVENTS),
    permissionDecision: z.enum(["allow", "deny", "ask"]).optional(),
    permissionDecisionReason: z.string().optional(),
    updatedInput: record.optional(),
    additionalContext: z.string().optional(),
    updatedMCPToolOutput: z.unknown().optional(),
    decision: permissionRequestDecision.optional(),
  }).optional(),
});
export type CodexOutput = z.infer<typeof codexOutputSchema>;

const text = z.string();
const common = { continue: z.boolean(), stopReason: text, suppressOutput: z.boolean(), systemMessage: text };
const blocks = { decision: z.literal("block"), reason: text };
const specific = (event: string, fields: z.ZodRawShape) => ({ hookSpecificOutput: z.strictObject({ hookEventName: z.literal(event), ...optional(fields) }) });
/** Fields with a default of their own in Codex's schema; every other is a serde `Option`, which reads `null` as absent (a Python hook's `"reason": None`). */
const HAS_DEFAULT = new Set(["continue", "suppressOutput"]);
const optional = (shape: z.ZodRawShape) => Object.fromEntries(Object.entries(shape).map(([k, v]) => [k,
  HAS_DEFAULT.has(k) ? (v as z.ZodType).optional() : z.preprocess((x) => (x === null ? undefined : x), (v as z.ZodType).optional())]));
/**
 * Each event's answer as Codex CLI 0.169.0's own schema for it (`<event>.command.output` in its
 * binary, strict; test/codex-output-fields.test.ts compares) takes it: Codex discards an answer with
 * a field its event does not take, and runs the call, so a field one hook gave on the wrong event
 * would take the other hooks' denies down with it in the router's merged answer. hookbox refuses it
 * there, by name, from the hook that gave it (`invalid_result`). SessionEnd has no such schema.
 */
export const CODEX_EVENT_FIELDS: Readonly<Partial<Record<(typeof CODEX_EVENTS)[number], z.ZodRawShape>>> = {
  PreToolUse: { ...common, decision: z.enum(["approve", "block"]), reason: text, ...specific("PreToolUse", { permissionDecision: z.enum(["allow", "deny", "ask"]), permissionDecisionReason: text, updatedInput: record, additionalContext: text }) },
  PermissionRequest: { ...common, ...specific("PermissionRequest", { decision: permissionRequestDecision }) },
  PostToolUse: { ...common, ...blocks, ...specific("PostToolUse", { additionalContext: text, updatedMCPToolOutput: z.unknown() }) },
  PreCompact: common,
  PostCompact: common,
  SessionStart: { ...common, ...specific("SessionStart", { additionalContext: text }) },
  SubagentStart: { ...common, ...specific("SubagentStart", { additionalContext: text }) },
  UserPromptSubmit: { ...common, ...blocks, ...specific("UserPromptSubmit", { additionalContext: text }) },
  Stop: { ...common, ...blocks },
  SubagentStop: { ...common, ...blocks },
  Interrupt: { systemMessage: text },
};
const eventOutput = Object.fromEntries(Object.entries(CODEX_EVENT_FIELDS).map(([event, shape]) => [event, z.strictObject(optional(shape)) as unknown as z.ZodType<CodexOutput>]));

const SUBSTITUTES: Record<string, string> = {
  updatedInput: "it rewrites the tool's input",
  additionalContext: "it adds text to the model's context",
  updatedMCPToolOutput: "it replaces a tool's result",
};
const ORDER = ["allow", "ask", "deny"] as const;

export const CODEX = commandDialect<CodexOutput>({
  agent: "Codex CLI",
  recordAs: "codex",
  launcher: "codex",
  program: "codex",
  packageName: "@openai/codex",
  versions: ["0.169.0"],
  timeoutUnitMs: 1000,
  defaultTimeoutMs: 600_000,
  events: CODEX_EVENTS,
  matchers: {
    PreToolUse: { field: "tool_name", regex: true },
    PermissionRequest: { field: "tool_name", regex: true },
    PostToolUse: { field: "tool_name", regex: true },
    SessionStart: { field: "source", regex: true },
  },
  failClosed: new Set(["PreToolUse", "PermissionRequest"]),
  blockStops: new Set(["PreToolUse", "PermissionRequest", "UserPromptSubmit", "PreCompact"]),
  output: codexOutputSchema,
  eventOutput,
  substitution(event, output) {
    if (output.decision === "approve") return { name: 'decision "approve"', why: "it grants a permission" };
    if (output.decision === "block" && !this.blockStops.has(event)) return { name: 'decision "block"', why: `on ${event} it makes the agent go on or feeds the model the hook's text` };
    if (output.systemMessage !== undefined) return { name: "systemMessage", why: "it speaks to the user in Codex's name" };
    const s = output.hookSpecificOutput;
    if (!s) return undefined;
    for (const [key, why] of Object.entries(SUBSTITUTES)) if ((s as Record<string, unknown>)[key] !== undefined) return { name: `hookSpecificOutput.${key}`, why };
    if (s.permissionDecision === "allow") return { name: 'hookSpecificOutput.permissionDecision "allow"', why: "it grants a permission" };
    if (s.decision?.behavior === "allow") return { name: 'hookSpecificOutput.decision.behavior "allow"', why: "it grants a permission" };
    if (s.decision?.updatedInput !== undefined) return { name: "hookSpecificOutput.decision.updatedInput", why: "it rewrites the tool's input" };
    return undefined;
  },
  exitBlocks: new Set([2]),
  // Codex gives a hook no variable naming the project: it runs it in the session's folder (hookbox: the project's).
  projectDirVars: [],
  approvableForm: "put what it runs in a script of the project and name it by its path from the project's folder, where Codex runs its hooks (Codex gives a hook no variable naming the project): bash .codex/hooks/<name>.sh",
  merge: (outputs, join) => mergeDecisions(outputs, ORDER, join),
  reply(verdict) {
    // Exit 2 blocks only with a non-empty stderr (an empty one is a failure, and Codex runs the call).
    if ("blocked" in verdict) return { code: 2, stdout: "", stderr: verdict.blocked.trim() || "hookbox blocked this call" };
    const output: CodexOutput = { ...verdict.output };
    if (verdict.warnings.length > 0) output.systemMessage = [output.systemMessage, `hookbox: ${verdict.warnings.join(" ")}`].filter(Boolean).join("\n");
    return { code: 0, stdout: Object.keys(output).length > 0 ? JSON.stringify(output) : "", stderr: "" };
  },
});

export interface CodexLayer { files: string[]; hooks: AgentHook[]; refused: RefusedAgentHook[]; problems: string[] }

/** The hooks of one config folder (`$CODEX_HOME`, a project's `.codex/`): its hooks.json and config.toml's `[hooks]`. */
export function readCodexLayer(dir: string, source: AgentHook["source"]): CodexLayer {
  const layer: CodexLayer = { files: [], hooks: [], refused: [], problems: [] };
  const add = (file: string, table: unknown) => {
    if (table === undefined) return;
    if (typeof table !== "object" || table === null || Array.isArray(table)) { layer.problems.push(`${file}: hooks is not a table`); return; }
    const read = readHookTable(CODEX, table as Record<string, unknown>, file, source);
    layer.files.push(file);
    layer.hooks.push(...read.hooks);
    layer.refused.push(...read.refused);
  };
  const json = join(dir, "hooks.json");
  const toml = join(dir, "config.toml");
  try {
    add(json, (JSON.parse(readFileSync(json, "utf8")) as { hooks?: unknown }).hooks);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") layer.problems.push(`${json} cannot be read: ${(e as Error).message}`);
  }
  try {
    add(toml, (parseToml(readFileSync(toml, "utf8")) as { hooks?: unknown }).hooks);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") layer.problems.push(`${toml} cannot be read: ${(e as Error).message}`);
  }
  return layer;
}

/**
 * Keys of a project's `.codex/config.toml` that run a command or widen what Codex CLI 0.169.0 does
 * without asking, which it honours from a project you trusted in Codex (checked with its own
 * `codex doctor --all` and `codex mcp list`: a project's `mcp_servers` are started, its
 * `approval_policy = "never"` and `sandbox_mode = "danger-full-access"` apply; `notify` and
 * `model_provider` it ignores there, itself): the MCP servers it starts, the approval and sandbox
 * settings, the environment every command gets, the node it runs for its JavaScript tool, and agent
 * roles, whose `config_file` is another config.
 */
export const CODEX_POWER_KEYS = [
  "mcp_servers", "approval_policy", "sandbox_mode", "sandbox_workspace_write", "default_permissions", "approvals_reviewer",
  "shell_environment_policy", "js_repl_node_path", "js_repl_node_module_dirs", "agents",
] as const;

/** The project's config folders Codex reads: `.codex/` in the folder and each parent up to the repository's root (the folder with `.git`), root first. */
export function codexProjectDirs(project: string): string[] {
  const dirs: string[] = [];
  let dir = project;
  for (;;) {
    dirs.unshift(join(dir, ".codex"));
    if (existsSync(join(dir, ".git"))) return dirs;
    const up = dirname(dir);
    if (up === dir) return [join(project, ".codex")];
    dir = up;
  }
}
