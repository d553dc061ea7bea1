/**
 * `hookbox emit <hook…> --event <type> [--payload <json> | --payload-file <file>]`: run one event
 * through a real `HookRunner` and print the result, every edit the hooks made to the event that the
 * host applied, what the host refused, and every `HookError`. For `tool_call`, print whether the
 * call would be blocked and why.
 */
import { readFileSync } from "node:fs";
import { BadEvent, EVENT_TYPES, isEventType, isRefusal, outcomeJson, parseEvent, runEvent, unknownType, type Outcome } from "./events.js";
import { agentEvents, isAgentEvent } from "./agent.js";
import { openHost, settle } from "./host.js";
import { editLines, errorLine, errorWithStack, type Output } from "./render.js";
import { promptLine } from "./ui.js";
import {
  COMMON_FLAGS, EXIT, POLICY_SECTION, TIMEOUT_FLAG, UI_SECTION, UsageError, command, hostOptions, readCommand, type Flags,
} from "./usage.js";
import type { HookError } from "../contract/errors.js";

/** `text` cut into lines of at most `width` characters at spaces, each indented. */
function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + word.length + 1 > width) { lines.push(line); line = word; } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => indent + l).join("\n");
}

const EMIT_FLAGS = {
  event: { type: "string", arg: "<type>", help: "the event type (tool_call, tool_result, context, turn_start, …; listed below)" },
  payload: { type: "string", arg: "<json>", help: "the event's fields as JSON (default {})" },
  "payload-file": { type: "string", arg: "<file>", help: "read the payload from a file (\"-\" for stdin)" },
} as const satisfies Flags;

export const EMIT = command("emit", {
  usage: "Usage: hookbox emit <hook…> --event <type> [--payload <json> | --payload-file <file>] [--agent hooks|pi|omp] [--json]",
  about: `Run one event through a real HookRunner over the given hooks (each in its own worker) and print
the combined result, every edit the hooks made to the event in place that the host applied (field
path: before → after), what the host refused (an invalid edit or result, a message outside the
protocol, anything a policy refuses: each HookError of that kind, with its code) and every other
HookError (with the hook's stack for handler_threw). For tool_call it prints whether the call
would be blocked, and why. With --json: "edits" [{path, before, after}], "refused" (those
HookErrors, also in "errors"). The payload is the event's fields as JSON
("type" may be left out), checked against the event's shape. Hook log lines go to stderr (into
"logs" with --json). Exits 2 on bad JSON, a payload of the wrong shape (naming the field) or an
event type the agent does not have; 1 if a hook failed to load (or, with --fail-on-error, any HookError).`,
  sections: [
    { title: "Options:", flags: EMIT_FLAGS },
    { title: "Common options:", flags: { ...COMMON_FLAGS, ...TIMEOUT_FLAG } },
    POLICY_SECTION,
    UI_SECTION,
  ],
  tail: `Event types of the hook contract:
${wrap(EVENT_TYPES.join(", "), 96, "  ")}
pi's besides (--agent pi):
${wrap(agentEvents("pi").filter((t) => !isEventType(t)).join(", "), 96, "  ")}

Examples (examples/ ships in the package):
  hookbox emit examples/hooks/confirm-destructive.ts --event tool_call --confirm no \\
    --payload '{"toolName":"bash","toolCallId":"1","input":{"command":"rm -rf /"}}'
  hookbox emit examples/hooks/git-dirty-guard.ts --event agent_start --allow-exec git
  hookbox emit examples/hooks/redact-secrets.ts --event tool_result --payload-file result.json --json
  hookbox emit .pi/extensions/guard.ts --agent pi --event model_select \\
    --payload '{"model":{"provider":"anthropic","id":"claude-sonnet-4-5"},"source":"set"}'
`,
});
export const EMIT_HELP = EMIT.help;

/** Run `emit`; returns the exit code. */
export async function emit(args: string[], out: Output, _signal?: AbortSignal, err: Output = out): Promise<number> {
  const read = readCommand(args, EMIT, out);
  if (read === undefined) return EXIT.ok;
  const { values, paths } = read;
  const type = values.event;
  if (type === undefined) throw new UsageError("--event <type> is required");
  const options = hostOptions(values);
  if (!isAgentEvent(options.agent, type)) throw new UsageError(unknownType(type, options.agent));
  if (values.payload !== undefined && values["payload-file"] !== undefined) {
    throw new UsageError("give --payload or --payload-file, not both");
  }
  const text = values["payload-file"] !== undefined ? readPayload(values["payload-file"]) : values.payload ?? "{}";
  let event;
  try {
    event = parseEvent(text, type, options.agent);
  } catch (err) {
    if (err instanceof BadEvent) throw new UsageError(`bad payload: ${err.message}`);
    throw err;
  }
  const host = await openHost(paths, options);
  try {
    // Without --agent the event was checked against every agent's; the one inferred must have it.
    if (!isAgentEvent(host.agent, type)) throw new UsageError(unknownType(type, host.agent));
    if (host.inferred && !values.json) err.write(`agent     ${host.agent} (inferred: ${host.inferred}; --agent chooses)\n`);
    const outcome = await runEvent(host.runner, event);
    await settle();
    const errors = host.takeErrors();
    const loadErrors = host.loadErrors.map((e) => ({ hookPath: e.path, event: "load", error: e.error, code: e.code }));
    if (values.json) {
      const closed = failedClosed(outcome, loadErrors);
      const doc = { agent: host.agent, ...(host.inferred ? { inferred: host.inferred } : {}), ...outcomeJson(outcome, errors), ...(closed ? { blocked: true, reason: closed } : {}), loadErrors, messages: host.messages, prompts: host.prompts, logs: host.logs };
      out.write(`${JSON.stringify(doc, null, 2)}\n`);
    } else {
      for (const l of host.logs) err.write(`log       ${l.hookPath} ${l.level}: ${l.line}\n`);
      for (const p of host.prompts) out.write(`ui        ${promptLine(p)}`);
      out.write(describe(outcome, errors, loadErrors));
      for (const m of host.messages) out.write(`message   ${m.customType}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}\n`);
    }
    if (host.loadErrors.length > 0) return EXIT.hookErrors;
    return options.failOnError && (errors.length > 0 || outcome.thrown) ? EXIT.hookErrors : EXIT.ok;
  } finally {
    await host.dispose();
  }
}

function readPayload(file: string): string {
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read --payload-file ${file}: ${(err as Error).message}`);
  }
}

/**
 * Why a tool call the loaded hooks let through is still blocked: a hook did not load, and the agent
 * (hookbox/extension) then blocks every tool call (fail closed), so emit says what the agent does.
 */
function failedClosed(o: Outcome, loadErrors: HookError[]): string | undefined {
  if (o.type !== "tool_call" || o.blocked !== false || loadErrors.length === 0) return undefined;
  return `${loadErrors.map((e) => e.hookPath).join(", ")} did not load; in the agent every tool call is then blocked (fail closed)`;
}

function describe(o: Outcome, errors: HookError[], loadErrors: HookError[]): string {
  let text = `event     ${o.type}\n`;
  if (o.edits.length > 0) text += `edits     ${o.edits.length + o.moreEdits}\n${editLines(o.edits, o.moreEdits)}`;
  const partial = loadErrors.length ? ` (without ${loadErrors.length} hook${loadErrors.length === 1 ? "" : "s"} that failed to load)` : "";
  const closed = failedClosed(o, loadErrors);
  if (o.blocked !== undefined) text += o.blocked ? `blocked   yes: ${o.reason}\n` : closed ? `blocked   yes: ${closed}\n` : `blocked   no\n`;
  if (o.type !== "tool_call") text += `result    ${o.result === undefined ? "none" : JSON.stringify(o.result, null, 2).replace(/\n/g, "\n          ")}${partial}\n`;
  const refused = errors.filter(isRefusal);
  if (refused.length > 0) text += `refused   ${refused.length}\n${refused.map((e) => errorLine(e)).join("")}`;
  const all = [...loadErrors, ...(o.thrown ? [o.thrown] : []), ...errors.filter((e) => !isRefusal(e))];
  text += all.length === 0 ? "errors    none\n" : `errors    ${all.length}\n${all.map((e) => errorWithStack(e)).join("")}`;
  return text;
}
