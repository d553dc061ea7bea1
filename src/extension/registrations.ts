/**
 * What an isolated pi extension registers besides event handlers (tools, commands, flags,
 * shortcuts), mirrored on the agent's real `pi` as data; what they run (a tool's `execute`, a
 * command's handler and completions, a shortcut's handler) runs in the module's worker. Every
 * name is gated (src/contract/protocol.ts, and here for commands), every text the agent shows passes the
 * terminal-text gate, and every answer is checked with zod before it reaches the agent.
 */
import { z } from "zod";
import { Errors, HookFailure, type HookError } from "../contract/errors.js";
import type { AgentContext } from "./context.js";
import type { LoadedHook } from "../runner/hook.js";
import { keySafe } from "../gates/safe-keys.js";
import { describeIssues, toolResult } from "../contract/schemas.js";
import { terminalText } from "../gates/terminal-text.js";
import type { HookCommandContext } from "../contract/types.js";
import { IsolatedHook } from "../runner/isolated-hook.js";
import { LIMITS, NAME_PATTERNS } from "../../worker/wire.mjs";
import type { ToolSpec } from "../contract/registration-schemas.js";
import type { Theme } from "../contract/types.js";
import { themedComponent } from "../bridge/render-theme.js";
import type { StandIn } from "../runner/isolated-hook.js";

/** The members of the agent's `ExtensionAPI` (pi 0.73.1) the registrations use. */
export interface AgentRegistrationAPI {
  registerTool(tool: any): void;
  registerCommand(name: string, options: any): void;
  registerFlag(name: string, options: any): void;
  getFlag(name: string): boolean | string | undefined;
  registerShortcut(shortcut: any, options: any): void;
}

/** pi's built-in tools (0.73.1): an isolated module's tool replaces one only under policy.effects "substitute" (src/extension/mirror.ts). */
export const BUILT_IN_TOOLS: readonly string[] = ["read", "bash", "edit", "write", "grep", "find", "ls"];
/**
 * oh-my-pi's built-in and hidden tools (18.2.3, `src/tools/index.ts` `BUILTIN_TOOLS`, `HIDDEN_TOOLS`):
 * oh-my-pi puts an extension's tool in its registry over the built-in of that name (`sdk.ts`), so
 * an isolated module's `glob` or `task` would answer the model's calls in the agent's place.
 */
export const OMP_BUILT_IN_TOOLS: readonly string[] = [
  "read", "security_scan", "bash", "edit", "ast_grep", "ast_edit", "ask", "debug", "eval", "github", "glob", "grep", "lsp",
  "checkpoint", "rewind", "context_notes", "new_context", "task", "hub", "todo", "web_search", "write", "memory_edit", "retain",
  "recall", "reflect", "learn", "manage_skill", "think", "yield", "goal",
];

/** The built-in tool names an isolated module's tool may not take in this line of agents (the omp line: oh-my-pi's and pi's). */
export function builtInTools(line: "omp" | "pi"): readonly string[] {
  return line === "omp" ? [...new Set([...OMP_BUILT_IN_TOOLS, ...BUILT_IN_TOOLS])] : BUILT_IN_TOOLS;
}

const toolAnswer = keySafe(toolResult);
const completionsAnswer = keySafe(z.array(z.strictObject({
  value: z.string().max(LIMITS.maxText), label: z.string().max(LIMITS.maxText), description: z.string().max(LIMITS.maxText).optional(),
})).max(LIMITS.maxOptions).nullable());

/** What the mirrored functions need from the adapter (src/extension/mirror.ts). */
export interface MirrorDeps {
  /** The agent called in with this context: make it the live one (and initialize the runner). */
  enter(ctx: AgentContext): void;
  /** A fault of an isolated module, reported as the adapter reports faults. */
  report(e: HookError): void;
  /** Whether the agent's session ended (session_shutdown): the modules' runner is disposed. */
  closed?(): boolean;
  /** hookbox's command context over the agent's command context `ctx`. */
  commandContext(ctx: AgentContext & Record<string, any>): HookCommandContext;
  /** A tool, command or shortcut of the module returned: what it registered meanwhile is mirrored (or refused). */
  after?(): void;
  /**
   * Resolves when the module may be called: at a start that mirrors the agent's previous one
   * (src/extension/starts.ts) its registrations are mirrored before it loads. Throws when it did not
   * load, or when it no longer registers `key` (`kind:name`): what was mirrored answers an error naming it.
   */
  ready?(hook: IsolatedHook, key: string): Promise<void>;
}

/** Each registration of a module, as `kind:name` (what was mirrored, to refuse what comes after load). */
export function registrationKeys(hook: LoadedHook): string[] {
  if (!(hook instanceof IsolatedHook)) return [...hook.commands.keys()].map((n) => `command:${n}`);
  return manifestKeys(hook.registrations);
}

/** The registrations of a manifest (a module's, or what it registered at the agent's previous start), as `kind:name`. */
export function manifestKeys(r: Registrations): string[] {
  return [
    ...(r.tools ?? []).map((t) => `tool:${t.name}`), ...r.commands.map((c) => `command:${c.name}`),
    ...(r.flags ?? []).map((f) => `flag:${f.name}`), ...(r.shortcuts ?? []).map((s) => `shortcut:${s.key}`),
  ];
}

/**
 * Why a module's registrations cannot be mirrored, or undefined: a command name the agent could
 * not show safely, or a name an earlier module took. `taken`: the keys of the modules before it
 * (filled in). A tool named as one of the agent's built-ins replaces it, as in the agent, only when
 * the module's policy.effects grants `substitute` (the adapter's `refusedEffect` refuses it below).
 */
export function registrationRefusal(hook: LoadedHook, taken: Set<string>): string | undefined {
  for (const key of registrationKeys(hook)) {
    const [kind, name] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
    if (kind === "command" && !NAME_PATTERNS.command.test(name)) return `pi.registerCommand(${JSON.stringify(name).slice(0, 80)}) is refused by hookbox/extension: a command name is 1 to 64 letters, digits, :, ., _ or -`;
    if (taken.has(key)) return `pi.${kindMember[kind]}("${name}") is refused by hookbox/extension: another isolated module registered it first`;
  }
  for (const key of registrationKeys(hook)) taken.add(key);
  return undefined;
}

const kindMember: Record<string, string> = { tool: "registerTool", command: "registerCommand", flag: "registerFlag", shortcut: "registerShortcut" };

const line = (text: string) => terminalText(text);
const lines = (text: string) => terminalText(text, { multiline: true });
const withText = <T extends { content: Array<{ type: string; text?: string }> }>(result: T): T =>
  ({ ...result, content: result.content.map((part) => (part.type === "text" && typeof part.text === "string" ? { ...part, text: lines(part.text) } : part)) });

/**
 * The error the agent gets for a failed isolated call: pi turns a tool's throw into an error
 * result the model reads, and reports a command's or shortcut's. Every fault but the module's own
 * throw is also reported (as the adapter reports event faults). A tool's own throw (`tool`) gives
 * the agent the tool's own message and nothing else, as in-process: pi shows it in the tool's result,
 * its only report of a tool's error.
 */
function failed(err: unknown, deps: MirrorDeps, tool = false): Error {
  if (!(err instanceof HookFailure)) return err instanceof Error ? err : new Error(String(err));
  if (tool && err.code === "handler_threw") return new Error(err.message);
  if (err.code !== "handler_threw") deps.report(err.toHookError());
  return new Error(`hookbox: ${err.hookPath} failed (${err.code}) in ${err.event}: ${err.message}`);
}

type Registrations = IsolatedHook["registrations"];

/**
 * Register on the agent's `pi` what the module registered (`r`: its manifest, or what it registered
 * at the agent's previous start, src/extension/starts.ts); its functions run in the worker.
 */
export function mirrorRegistrations(pi: AgentRegistrationAPI, hook: IsolatedHook, deps: MirrorDeps, r: Registrations = hook.registrations): void {
  for (const spec of r.tools ?? []) mirrorTool(pi, hook, spec, deps);
  for (const command of r.commands) {
    pi.registerCommand(command.name, {
      ...(command.description === undefined ? {} : { description: line(command.description) }),
      ...(command.completions ? { getArgumentCompletions: (prefix: string) => completions(hook, command.name, prefix, deps) } : {}),
      handler: async (args: string, ctx: AgentContext & Record<string, any>) => {
        deps.enter(ctx);
        try {
          await deps.ready?.(hook, `command:${command.name}`);
          await hook.commands.get(command.name)?.handler(String(args), deps.commandContext(ctx));
        } catch (err) {
          // The agent shut down while the command ran (its own ctx.shutdown(): pi's session_shutdown ended the module's runner): nothing failed.
          if (err instanceof HookFailure && err.code === "disabled" && deps.closed?.()) return;
          throw failed(err, deps);
        } finally {
          deps.after?.();
        }
      },
    });
  }
  for (const flag of r.flags ?? []) {
    pi.registerFlag(flag.name, {
      type: flag.type,
      ...(flag.description === undefined ? {} : { description: line(flag.description) }),
      ...(flag.default === undefined ? {} : { default: flag.default }),
    });
  }
  for (const shortcut of r.shortcuts ?? []) {
    pi.registerShortcut(shortcut.key, {
      ...(shortcut.description === undefined ? {} : { description: line(shortcut.description) }),
      handler: async (ctx: AgentContext) => {
        deps.enter(ctx);
        try {
          await deps.ready?.(hook, `shortcut:${shortcut.key}`);
          await hook.runShortcut(shortcut.key, ctx);
        } catch (err) {
          throw failed(err, deps);
        } finally {
          deps.after?.();
        }
      },
    });
  }
}

/** One tool of the module on the agent's `pi`, at load or later (pi takes a tool at any time); its execute runs isolated. */
export function mirrorTool(pi: AgentRegistrationAPI, hook: IsolatedHook, spec: ToolSpec, deps: MirrorDeps): void {
  const event = `tool ${spec.name}`;
  pi.registerTool({
    name: spec.name,
    label: line(spec.label),
    description: lines(spec.description),
    parameters: spec.parameters,
    ...(spec.promptSnippet === undefined ? {} : { promptSnippet: line(spec.promptSnippet) }),
    ...(spec.promptGuidelines === undefined ? {} : { promptGuidelines: spec.promptGuidelines.map(line) }),
    ...(spec.executionMode === undefined ? {} : { executionMode: spec.executionMode }),
    ...(spec.renderShell === undefined ? {} : { renderShell: spec.renderShell }),
    ...synchronousMembers(hook, spec),
    execute: async (toolCallId: string, params: unknown, signal: AbortSignal | undefined, onUpdate: ((partial: unknown) => void) | undefined, ctx: AgentContext) => {
      deps.enter(ctx);
      let raw: unknown;
      try {
        await deps.ready?.(hook, `tool:${spec.name}`);
        // The bridge's table checked each partial result (tool.update) before it gets here.
        raw = await hook.runTool(spec.name, String(toolCallId), params, signal, (partial) => onUpdate?.(withText(partial as z.infer<typeof toolResult>)), ctx);
      } catch (err) {
        throw failed(err, deps, true);
      } finally {
        deps.after?.();
      }
      const parsed = toolAnswer.safeParse(raw);
      if (!parsed.success) throw failed(Errors.invalidResult(hook.path, event, describeIssues(parsed.error)), deps);
      return withText(parsed.data);
    },
  });
}

/** pi's render context as data: what crosses of it (its functions and components are the worker's own). */
const RENDER_CONTEXT = ["toolCallId", "cwd", "executionStarted", "argsComplete", "isPartial", "expanded", "showImages", "isError"] as const;

/**
 * A tool's renderers and prepareArguments (worker isolation: the adapter refuses them in the
 * others), each the agent calls synchronously: they run in the worker through the render path
 * (src/isolation/render.ts), bounded as message renderers are (renderTimeoutMs, the render budget,
 * the line bounds and the terminal-text gate). A renderer that failed, timed out or made nothing
 * throws, so pi draws its default row (pi catches a renderer's throw); prepareArguments that
 * failed throws, which pi turns into an error result the model reads.
 */
function synchronousMembers(hook: IsolatedHook, spec: ToolSpec): Record<string, unknown> {
  const members: Record<string, unknown> = {};
  const data = (context: Record<string, unknown> | undefined) => Object.fromEntries(RENDER_CONTEXT.filter((k) => context?.[k] !== undefined).map((k) => [k, context![k]]));
  // pi gives back what a renderer returned (the themed stand-in) as `lastComponent`: the stand-in under it names the worker's component.
  const standIns = new WeakMap<object, StandIn>();
  const made = (what: string, theme: Theme | undefined, render: (last: unknown) => StandIn | undefined, context: Record<string, any> | undefined) => {
    let inner: StandIn | undefined;
    const last = context?.lastComponent;
    const component = themedComponent(theme, () => (inner = render(typeof last === "object" && last !== null ? standIns.get(last) : undefined)));
    if (component === undefined || inner === undefined) throw new Error(`hookbox: ${hook.path}'s ${what} of tool ${spec.name} rendered nothing (default rendering)`);
    standIns.set(component, inner);
    return component;
  };
  if (spec.renderCall) {
    const render = hook.toolRenderer(spec.name, "call");
    members.renderCall = (args: unknown, theme: Theme | undefined, context: Record<string, any> | undefined) =>
      made("renderCall", theme, (last) => render(args, { expanded: Boolean(context?.expanded), isPartial: Boolean(context?.isPartial) }, data(context), last), context);
  }
  if (spec.renderResult) {
    const render = hook.toolRenderer(spec.name, "result");
    members.renderResult = (result: unknown, options: { expanded?: boolean; isPartial?: boolean } | undefined, theme: Theme | undefined, context: Record<string, any> | undefined) =>
      made("renderResult", theme, (last) => render(result, { expanded: Boolean(options?.expanded), isPartial: Boolean(options?.isPartial) }, data(context), last), context);
  }
  if (spec.prepareArguments) {
    members.prepareArguments = (args: unknown) => {
      const prepared = hook.prepareArguments(spec.name, args);
      if (prepared.ok) return prepared.v;
      // The failure was reported where it happened (the hook's fault channel); the model reads its code.
      const why = prepared.failure ? `(${prepared.failure.code}): ${prepared.failure.message}` : "(timeout): its renders were demoted for their time (render budget) or it is not running";
      throw new Error(`hookbox: ${hook.path} failed in prepareArguments of tool ${spec.name} ${why}`);
    };
  }
  return members;
}

/** A command's completions from the worker, checked; a failure is reported and the agent gets none (null). */
async function completions(hook: IsolatedHook, name: string, prefix: string, deps: MirrorDeps): Promise<unknown> {
  const event = `completions of /${name}`;
  let raw: unknown;
  try {
    await deps.ready?.(hook, `command:${name}`);
    raw = await hook.completions(name, String(prefix));
  } catch (err) {
    const failure = err instanceof HookFailure ? err : Errors.handlerThrew(hook.path, event, String(err));
    deps.report(failure.toHookError());
    return null;
  }
  const parsed = completionsAnswer.safeParse(raw);
  if (!parsed.success) {
    deps.report(Errors.invalidResult(hook.path, event, describeIssues(parsed.error)).toHookError());
    return null;
  }
  return parsed.data?.map((item) => ({ value: line(item.value), label: line(item.label), ...(item.description === undefined ? {} : { description: line(item.description) }) })) ?? null;
}

/** Whether the module at `hookPath` registered the flag `name` (pi's getFlag answers only an extension's own flags). */
export function registeredFlag(hooks: readonly LoadedHook[], hookPath: string, name: string): boolean {
  const hook = hooks.find((h) => h.path === hookPath);
  return hook instanceof IsolatedHook && (hook.registrations.flags ?? []).some((f) => f.name === name);
}
