/**
 * What the agent adapter refuses of a loaded module (src/extension/adapter.ts, ./mirror.ts): a
 * registration above its policy.effects (`effect_refused`), one the adapter cannot carry or an
 * earlier module took (`load_failed`), and the handlers of events the agent does not have (said once).
 */
import { Errors, type HookErrorCode, type HookFailure } from "../contract/errors.js";
import { memberRefusal } from "../bridge/agent-gate.js";
import type { LoadedHook } from "../runner/hook.js";
import { IsolatedHook } from "../runner/isolated-hook.js";
import type { ToolSpec } from "../contract/registration-schemas.js";
import { TOOL_MEMBERS, refusedToolMemberMessage } from "../../worker/extension-members.mjs";
import { builtInTools, registrationRefusal } from "./registrations.js";
import { carriedEvents } from "./carried.js";
import type { Notices } from "./notices.js";

/** A module that did not load (or was refused before loading), with why. */
export interface Unloaded { path: string; code: HookErrorCode; error: string }

export type Carried = ReturnType<typeof carriedEvents>;

/**
 * Why the agent of `line` does not run a loaded module, or undefined: a registration above its
 * policy.effects (`effect_refused`), or one the adapter cannot carry or an earlier module took
 * (`load_failed`). `taken`: the registrations of the modules before it (filled in). `hookbox
 * check --agent pi` reports the same.
 */
export function agentRefusal(hook: LoadedHook, line: "omp" | "pi", taken: Set<string>): Unloaded | undefined {
  const builtIns = builtInTools(line);
  const replacing = refusedEffect(hook, builtIns);
  if (replacing) return { path: hook.path, code: replacing.code, error: replacing.message };
  const refusal = refusedRegistration(hook, carriedEvents(line)) ?? registrationRefusal(hook, taken);
  return refusal === undefined ? undefined : { path: hook.path, code: "load_failed", error: Errors.loadFailed(hook.path, refusal).message };
}

/**
 * A registration that changes what the agent does, above the module's policy.effects: a tool under
 * one of the agent's built-in names would replace the agent's own (`MEMBER_EFFECTS["registerTool:built-in"]`;
 * under substitute it does, as in the agent), a tool's prompt snippet or
 * guidelines are system prompt text (`"registerTool:prompt"`). Refused as `effect_refused`, naming it.
 */
export function refusedEffect(hook: LoadedHook, builtIns: readonly string[]): HookFailure | undefined {
  if (!(hook instanceof IsolatedHook)) return undefined;
  for (const tool of hook.registrations.tools ?? []) {
    const refused = refusedToolEffect(hook, tool, builtIns);
    if (refused) return refused;
  }
  return undefined;
}

/** `refusedEffect` for one tool of the module (at load, or registered later). */
export function refusedToolEffect(hook: IsolatedHook, tool: ToolSpec, builtIns: readonly string[]): HookFailure | undefined {
  const policy = hook.sandbox.options.policy;
  if (builtIns.includes(tool.name)) return memberRefusal(policy, hook.path, "registerTool:built-in", `pi.registerTool("${tool.name}"), replacing the agent's built-in tool`);
  // A tool's prompt snippet and guidelines are text the agent adds to the model's system prompt.
  const field = tool.promptSnippet !== undefined ? "promptSnippet" : tool.promptGuidelines !== undefined ? "promptGuidelines" : undefined;
  return field ? memberRefusal(policy, hook.path, "registerTool:prompt", `pi.registerTool("${tool.name}") with a ${field} (text the agent adds to its system prompt)`) : undefined;
}

/** What a loaded module registered that the adapter cannot carry, as a message; undefined when all of it crosses. */
export function refusedRegistration(hook: LoadedHook, carried: Carried): string | undefined {
  for (const [event, list] of hook.handlers) {
    if (list.length > 0 && Object.hasOwn(carried.refused, event)) return `pi.on("${event}") is refused by hookbox/extension: ${carried.refused[event]}`;
  }
  if (hook.messageRenderers.size > 0 && hook.sandbox?.options.isolation !== "worker") return `pi.registerMessageRenderer is refused by hookbox/extension: ${RENDERER_NEEDS_WORKER}`;
  // A tool's renderers and prepareArguments, as message renderers: worker isolation only.
  if (hook instanceof IsolatedHook && hook.sandbox.options.isolation !== "worker") {
    for (const tool of hook.registrations.tools ?? []) {
      const member = TOOL_MEMBERS.synchronous.find((m) => (tool as Record<string, unknown>)[m] === true);
      if (member) return `${refusedToolMemberMessage(member)} (tool "${tool.name}")`;
    }
  }
  return undefined;
}

/** Why a renderer crosses in worker mode only. */
export const RENDERER_NEEDS_WORKER = "the agent's terminal calls a renderer's render(width) synchronously, which only worker isolation answers (shared memory); "
  + "in process and sandbox isolation the message would render by default";

/**
 * The events `hook` subscribes to that the agent does not have (one of an older or newer agent,
 * pi's `session_switch` or `agent_settled`, or a misspelt name): the agent never fires such a
 * handler in its own process, so the module loads and the handler is never called, said once.
 */
function unfiredEvents(hook: LoadedHook, carried: Carried): string[] {
  return [...hook.handlers].filter(([event, list]) => list.length > 0 && !Object.hasOwn(carried.refused, event) && !isCarried(event, carried)).map(([event]) => event);
}

/** Says once per module and event that a handler of an event the agent lacks is never called. */
export function showUnfired(notices: Notices, hook: LoadedHook, carried: Carried): void {
  const agent = carried.line === "omp" ? "oh-my-pi" : "pi";
  for (const event of unfiredEvents(hook, carried)) {
    notices.show(hook.path, `unfired:${event}`, `hookbox: ${hook.path}: pi.on(${JSON.stringify(event)}): ${agent} has no such event, so this handler is never called (the module is loaded, as ${agent} loads it)`);
  }
}

function isCarried(event: string, carried: Carried): boolean {
  return carried.results.includes(event) || carried.notified.includes(event);
}

