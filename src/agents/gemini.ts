/**
 * Gemini CLI's hook contract, read from @google/gemini-cli 0.61.0 (bundle: HookRegistry, HookPlanner,
 * HookRunner, HookAggregator): `hooks` in settings.json maps an event to groups `{ matcher,
 * sequential, hooks: [{ type: "command", command, name, timeout (ms), env }] }`; a tool event's
 * matcher is a JavaScript regular expression tested unanchored on the tool's name (an invalid one is
 * compared as a string), SessionStart/SessionEnd/PreCompress compare their trigger exactly; a hook is
 * known by its `name`, else its command (`hooksConfig.disabled` lists such names). Exit 0 prints JSON
 * (or text, shown to the user); exit 1 is a warning; any other exit with text is a deny with it as
 * the reason. docs/gemini.md.
 */
import { readFileSync } from "node:fs";
import stripJsonComments from "strip-json-comments";
import { z } from "zod";
import type { AgentHook, RefusedAgentHook } from "./dialect.js";
import { commandDialect } from "./command-hooks.js";
import { readHookTable } from "./settings.js";

export const GEMINI_EVENTS = [
  "BeforeTool", "AfterTool", "BeforeAgent", "Notification", "AfterAgent", "SessionStart", "SessionEnd", "PreCompress",
  "BeforeModel", "AfterModel", "BeforeToolSelection",
] as const;
/** Keys of `hooks` that are not events (Gemini reads them as hooksConfig). */
const CONFIG_KEYS = new Set(["enabled", "disabled", "notifications"]);
/**
 * Settings of a project's file (dotted paths) that run a command or widen what Gemini CLI may do
 * without asking, read from 0.61.0's settings schema: its own list of what runs a command
 * (`sanitizeSettingsForSandbox` drops `tools.discoveryCommand` and `tools.callCommand`), the MCP
 * servers it starts, the pager every shell command gets, what skips a confirmation, and
 * `advanced.ignoreLocalEnv`, which hookbox gemini sets in your view so that a project's `.env` is not
 * loaded into Gemini's environment (src/agents/gemini-env.ts): the project may not turn it off.
 */
export const GEMINI_POWER_KEYS = [
  "mcpServers", "mcp.serverCommand", "tools.discoveryCommand", "tools.callCommand", "tools.shell.pager",
  "tools.allowed", "general.defaultApprovalMode", "advanced.excludedEnvVars", "advanced.ignoreLocalEnv", "security.enablePermanentToolApproval",
] as const;
/** Gemini CLI's default deadline of a command hook. */
export const GEMINI_DEFAULT_TIMEOUT_MS = 60_000;

const record = z.record(z.string(), z.unknown());
/** Gemini reads every field by its truth or by `===` (`if (output.reason)`, `continue === false`): `null` is absent (a Python hook's None). */
const field = <T extends z.ZodType>(t: T) => z.preprocess((x) => (x === null ? undefined : x), t.optional());
/** A hook's JSON answer (HookOutput of 0.61.0); hookSpecificOutput holds each event's fields. */
const geminiOutputSchema = z.strictObject({
  continue: field(z.boolean()),
  stopReason: field(z.string()),
  suppressOutput: field(z.boolean()),
  systemMessage: field(z.string()),
  decision: field(z.enum(["allow", "approve", "ask", "deny", "block"])),
  reason: field(z.string()),
  hookSpecificOutput: field(z.strictObject({
    hookEventName: field(z.enum(GEMINI_EVENTS)),
    additionalContext: field(z.string()),
    tool_input: field(record),
    tailToolCallRequest: field(record),
    llm_request: field(record),
    llm_response: field(record),
    toolConfig: field(record),
    clearContext: field(z.boolean()),
  })),
});
export type GeminiOutput = z.infer<typeof geminiOutputSchema>;

/** hookSpecificOutput fields that make Gemini do or read something else: a project hook does not get them. */
const SUBSTITUTES: Record<string, string> = {
  tool_input: "it rewrites the tool's input",
  tailToolCallRequest: "it makes the agent call another tool",
  llm_request: "it rewrites the model request",
  llm_response: "it replaces the model's answer",
  toolConfig: "it changes the tools the model may call",
  additionalContext: "it adds text to the model's context",
  clearContext: "it clears the model's context",
};

const DENY = new Set(["deny", "block"]);

export const GEMINI = commandDialect<GeminiOutput>({
  agent: "Gemini CLI",
  recordAs: "gemini",
  launcher: "gemini",
  program: "gemini",
  packageName: "@google/gemini-cli",
  versions: ["0.61.0"],
  events: GEMINI_EVENTS,
  timeoutUnitMs: 1,
  defaultTimeoutMs: GEMINI_DEFAULT_TIMEOUT_MS,
  matchers: {
    BeforeTool: { field: "tool_name", regex: true },
    AfterTool: { field: "tool_name", regex: true },
    SessionStart: { field: "source", regex: false },
    SessionEnd: { field: "reason", regex: false },
    PreCompress: { field: "trigger", regex: false },
  },
  failClosed: new Set(["BeforeTool"]),
  blockStops: new Set(["BeforeTool", "BeforeAgent", "BeforeModel"]),
  output: geminiOutputSchema,
  substitution(event, output) {
    if (output.decision === "allow" || output.decision === "approve") return { name: `decision "${output.decision}"`, why: "it may grant a permission" };
    if (output.decision !== undefined && DENY.has(output.decision) && !this.blockStops.has(event)) return { name: `decision "${output.decision}"`, why: `on ${event} it makes the agent go on or feeds the model the hook's text` };
    if (output.systemMessage !== undefined) return { name: "systemMessage", why: "it speaks to the user in Gemini CLI's name" };
    for (const [key, why] of Object.entries(SUBSTITUTES)) {
      if ((output.hookSpecificOutput as Record<string, unknown> | undefined)?.[key] !== undefined) return { name: `hookSpecificOutput.${key}`, why };
    }
    return undefined;
  },
  exitBlocks: new Set([2]),
  projectDirVars: ["GEMINI_PROJECT_DIR", "GEMINI_CWD", "CLAUDE_PROJECT_DIR"],
  approvableForm: 'put what it runs in a script of the project and name it: bash "$GEMINI_PROJECT_DIR"/.gemini/hooks/<name>.sh',
  merge(outputs, join) {
    const out: GeminiOutput = {};
    if (outputs.some((o) => o.continue === false)) out.continue = false;
    if (outputs.some((o) => o.suppressOutput)) out.suppressOutput = true;
    const stopReason = join(outputs.map((o) => o.stopReason), true);
    if (stopReason) out.stopReason = stopReason;
    const denied = outputs.filter((o) => o.decision !== undefined && DENY.has(o.decision));
    const decided = denied.length > 0 ? denied : outputs.filter((o) => o.decision !== undefined);
    if (decided.length > 0) {
      out.decision = denied.length > 0 ? "deny" : decided[0]!.decision!;
      const reason = join(decided.map((o) => o.reason), true);
      if (reason) out.reason = reason;
    }
    const systemMessage = join(outputs.map((o) => o.systemMessage));
    if (systemMessage) out.systemMessage = systemMessage;
    const specifics = outputs.flatMap((o) => (o.hookSpecificOutput ? [o.hookSpecificOutput] : []));
    if (specifics.length > 0) {
      const s = Object.assign({}, ...specifics) as NonNullable<GeminiOutput["hookSpecificOutput"]>;
      const context = join(specifics.map((x) => x.additionalContext));
      if (context) s.additionalContext = context;
      out.hookSpecificOutput = s;
    }
    return out;
  },
  reply(verdict) {
    // A deny as JSON on stdout, exit 2 as well: Gemini reads stdout first, and a reason on stderr that
    // happens to parse as JSON (a hook's own text) would otherwise be read as the hook's answer.
    if ("blocked" in verdict) return { code: 2, stdout: JSON.stringify({ decision: "deny", reason: verdict.blocked }), stderr: "" };
    const output: GeminiOutput = { ...verdict.output };
    if (verdict.warnings.length > 0) output.systemMessage = [output.systemMessage, `hookbox: ${verdict.warnings.join(" ")}`].filter(Boolean).join("\n");
    return { code: 0, stdout: Object.keys(output).length > 0 ? JSON.stringify(output) : "", stderr: "" };
  },
});

/** The part of a Gemini CLI settings file hookbox reads; the rest passes through. */
export const geminiSettingsSchema = z.object({
  hooks: z.record(z.string(), z.unknown()).optional(),
  hooksConfig: z.object({ enabled: z.boolean().optional(), disabled: z.array(z.string()).optional() }).passthrough().optional(),
}).passthrough();

export interface GeminiSettings {
  file: string;
  settings: Record<string, unknown>;
  hooks: AgentHook[];
  refused: RefusedAgentHook[];
  problems: string[];
}

/** Read one settings file (JSON with comments, as Gemini CLI reads it); a missing file has no hooks. */
export function readGeminiSettings(file: string, source: AgentHook["source"]): GeminiSettings {
  const empty: GeminiSettings = { file, settings: {}, hooks: [], refused: [], problems: [] };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return empty;
    return { ...empty, problems: [`${file} cannot be read: ${(e as Error).message}`] };
  }
  let value: unknown;
  try {
    value = JSON.parse(stripJsonComments(text));
  } catch (e) {
    return { ...empty, problems: [`${file} is not JSON (${(e as Error).message}): Gemini CLI will not load it either`] };
  }
  const parsed = geminiSettingsSchema.safeParse(value);
  if (!parsed.success) return { ...empty, problems: [`${file}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`] };
  const settings = parsed.data as Record<string, unknown> & z.infer<typeof geminiSettingsSchema>;
  const { hooks: table = {}, ...rest } = settings;
  const known = Object.fromEntries(Object.entries(table).filter(([k]) => !CONFIG_KEYS.has(k)));
  const out: GeminiSettings = { ...empty, settings: { ...rest, ...(settings.hooks ? { hooks: table } : {}) }, ...readHookTable(GEMINI, known, file, source) };
  return out;
}
