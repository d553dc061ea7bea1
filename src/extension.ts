/**
 * `hookbox/extension`: isolate a coding agent's extensions without replacing the agent. In pi
 * (0.73.1) an extension is a factory the agent awaits; `isolate(paths, options)` returns one. It
 * loads each module with `loadHooks` (each in its own worker, process or sandbox), then mirrors on
 * the agent's real `pi` every event the adapter carries, forwarding each call to hookbox's
 * `HookRunner` and returning its result to the agent's runner, which keeps its own ordering and
 * combination rules. What crosses and what is refused is one table: `worker/extension-members.mjs`.
 */
import { terminalText } from "./terminal-text.js";
import { Errors, type HookError, type HookErrorCode } from "./errors.js";
import type { LoadedHook } from "./hook.js";
import { loadHooks, type LoadOptions } from "./loader.js";
import { resolvePath } from "./paths.js";
import { HookRunner } from "./runner.js";
import { LiveAgentContext, type AgentContext } from "./extension-context.js";
import {
  NOTIFY_EVENTS, REFUSED_EVENTS, REFUSED_MEMBERS, RESULT_EVENTS, refusedMemberMessage,
} from "../worker/extension-members.mjs";
import type { HookEvent } from "./types.js";

export type { AgentContext } from "./extension-context.js";

export interface IsolateOptions extends LoadOptions {
  /**
   * Modules (as given in `paths`, or their absolute paths) whose failure to load does not block
   * tool calls. By default a module that did not load blocks every tool call (fail closed): a
   * guard that failed to load must not let the model's `rm -rf` run unguarded.
   */
  optional?: string[];
}

/** The part of the agent's `ExtensionAPI` (pi 0.73.1) the adapter uses. */
export interface AgentExtensionAPI {
  // `any`: pi's ExtensionAPI overloads `on` per event; this keeps it assignable to the parameter.
  on(event: any, handler: any): void;
  sendMessage(message: any, options?: any): void;
  appendEntry(customType: string, data?: unknown): void;
}

/** An extension factory, as the agent awaits it. */
export type IsolatedExtension = (pi: AgentExtensionAPI) => Promise<void>;

interface Unloaded { path: string; code: HookErrorCode; error: string }

/**
 * The extension factory that loads `paths` isolated. Paths resolve like `loadHooks` paths (against
 * the agent's working directory; `~` is the home folder); options are `loadHooks`' plus `optional`.
 * The factory resolves when every module has loaded (or failed to) and every event is mirrored.
 */
export function isolate(paths: string[], options: IsolateOptions = {}): IsolatedExtension {
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== "string")) throw new TypeError("isolate: paths must be an array of module paths (strings)");
  const { optional = [], ...loadOptions } = options;
  if (!Array.isArray(optional) || optional.some((p) => typeof p !== "string")) throw new TypeError("isolate: optional must be an array of module paths (strings)");
  return async (pi) => {
    const cwd = process.cwd();
    const loaded = await loadHooks(paths, cwd, loadOptions);
    const unloaded: Unloaded[] = loaded.errors.map(({ path, code, error }) => ({ path, code, error }));
    const hooks: LoadedHook[] = [];
    for (const hook of loaded.hooks) {
      const refusal = refusedRegistration(hook);
      if (!refusal) { hooks.push(hook); continue; }
      unloaded.push({ path: hook.path, code: "load_failed", error: Errors.loadFailed(hook.path, refusal).message });
      await hook.dispose?.();
    }
    const isOptional = (path: string) => optional.includes(path) || optional.some((o) => resolvePath(o, cwd) === resolvePath(path, cwd));
    new Mirror(pi, hooks, cwd, unloaded, isOptional).install();
  };
}

/** What a loaded module registered that the adapter cannot carry, as a message; undefined when all of it crosses. */
function refusedRegistration(hook: LoadedHook): string | undefined {
  for (const [event, list] of hook.handlers) {
    if (list.length > 0 && Object.hasOwn(REFUSED_EVENTS, event)) return `pi.on("${event}") is refused by hookbox/extension: ${REFUSED_EVENTS[event]}`;
    if (list.length > 0 && !isCarried(event)) return `pi.on("${event}") is refused by hookbox/extension: the agent has no such event`;
  }
  if (hook.commands.size > 0) return refusedMemberMessage("registerCommand");
  if (hook.messageRenderers.size > 0) return refusedMemberMessage("registerMessageRenderer");
  return undefined;
}

/** `value` as plain data (what JSON keeps of it), or undefined when it is not serializable. */
function asData(value: unknown): unknown {
  try {
    return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  } catch {
    return undefined;
  }
}

function isCarried(event: string): boolean {
  return (RESULT_EVENTS as readonly string[]).includes(event) || (NOTIFY_EVENTS as readonly string[]).includes(event);
}

/** One isolate() instance inside the agent: the runner over its modules and the handlers mirrored on the agent's `pi`. */
class Mirror {
  readonly #pi: AgentExtensionAPI;
  readonly #runner: HookRunner;
  readonly #live = new LiveAgentContext();
  readonly #unloaded: Unloaded[];
  readonly #blocking: Unloaded[];
  readonly #isOptional: (path: string) => boolean;
  #initialized = false;
  #reportedUnloaded = false;
  #disposed = false;

  constructor(pi: AgentExtensionAPI, hooks: LoadedHook[], cwd: string, unloaded: Unloaded[], isOptional: (path: string) => boolean) {
    this.#pi = pi;
    this.#unloaded = unloaded;
    this.#isOptional = isOptional;
    this.#blocking = unloaded.filter((u) => !isOptional(u.path));
    this.#runner = new HookRunner(hooks, cwd, this.#live.sessionManager, this.#live.modelRegistry);
    this.#runner.onError((e) => this.#report(e));
  }

  install(): void {
    for (const event of [...RESULT_EVENTS, ...NOTIFY_EVENTS]) {
      this.#pi.on(event, (payload: HookEvent & Record<string, unknown>, ctx: AgentContext) => this.#forward(event, payload, ctx));
    }
  }

  async #forward(type: string, event: HookEvent & Record<string, unknown>, ctx: AgentContext): Promise<unknown> {
    this.#live.set(ctx);
    this.#initialize(ctx);
    if (type === "tool_call" && this.#blocking.length > 0) return { block: true, reason: this.#blockReason() };
    if (this.#disposed) return undefined;
    const result = this.#runner.hasHandlers(type) ? await this.#emit(type, event) : undefined;
    this.#refuseLate();
    if (type === "session_shutdown") {
      this.#disposed = true;
      await this.#runner.dispose();
    }
    // Why a throw: it reaches the agent's own error path (pi's runner reports it by the extension's
    // path), after the loaded modules got the event.
    if (type === "session_start" && this.#unloaded.length > 0 && !this.#reportedUnloaded) {
      this.#reportedUnloaded = true;
      throw new Error(`hookbox: ${this.#unloaded.map((u) => `${u.path} did not load (${u.code}): ${u.error}`).join("; ")}`
        + (this.#blocking.length > 0 ? "; every tool call is blocked (fail closed)" : ""));
    }
    return result;
  }

  async #emit(type: string, event: HookEvent & Record<string, unknown>): Promise<unknown> {
    switch (type) {
      case "tool_call":
        return this.#runner.emitToolCall(event as Parameters<HookRunner["emitToolCall"]>[0]);
      case "context": {
        const messages = event.messages as Parameters<HookRunner["emitContext"]>[0];
        const out = await this.#runner.emitContext(messages);
        return out === messages ? undefined : { messages: out };
      }
      case "before_agent_start": {
        // The module gets the prompt, images, system prompt and the options pi built it from
        // (BuildSystemPromptOptions: plain data, cwd, tools, context files, skills) as data.
        const { prompt, images, systemPrompt, systemPromptOptions } = event as Record<string, unknown>;
        return this.#runner.emit({ type, prompt, images, systemPrompt, systemPromptOptions: asData(systemPromptOptions) } as unknown as HookEvent);
      }
      default: {
        const result = await this.#runner.emit(event);
        return (RESULT_EVENTS as readonly string[]).includes(type) ? result : undefined;
      }
    }
  }

  /**
   * A registration made after load that cannot cross (a refused event, a command, a renderer) is
   * refused as a load would be: reported once, and that module then blocks every tool call.
   */
  #refuseLate(): void {
    for (const hook of this.#runner.getHooks()) {
      if (this.#unloaded.some((u) => u.path === hook.path)) continue;
      const refusal = refusedRegistration(hook);
      if (!refusal) continue;
      // The refusal may quote a name the module chose: HookFailure's message passes the terminal-text gate.
      const late: Unloaded = { path: hook.path, code: "load_failed", error: Errors.loadFailed(hook.path, `${refusal} (registered after load)`).message };
      this.#unloaded.push(late);
      if (!this.#isOptional(hook.path)) this.#blocking.push(late);
      this.#report({ hookPath: hook.path, event: "load", code: "load_failed", error: late.error });
    }
  }

  #initialize(ctx: AgentContext): void {
    if (this.#initialized) return;
    this.#initialized = true;
    const live = this.#live;
    this.#runner.initialize({
      getModel: () => live.current?.model,
      sendMessageHandler: (message, options) => this.#pi.sendMessage(message, options),
      appendEntryHandler: (customType, data) => this.#pi.appendEntry(customType, data),
      isIdle: () => live.require().isIdle(),
      abort: () => live.require().abort(),
      hasQueuedMessages: () => live.require().hasPendingMessages(),
      uiContext: live.ui,
      hasUI: Boolean(ctx.hasUI),
    });
  }

  #blockReason(): string {
    const names = this.#blocking.map((u) => `${u.path} (${u.code})`).join(", ");
    return terminalText(`hookbox: blocked because isolated extension ${names} did not load (fail closed)`, { colors: false });
  }

  /** A fault of an isolated module: the agent's UI when it has one, else stderr as pi prints extension errors. */
  #report(e: HookError): void {
    const line = `hookbox: ${e.hookPath}: ${e.code} in ${e.event}: ${e.error}`;
    const ctx = this.#live.current;
    try {
      if (ctx?.hasUI) { ctx.ui.notify(line, "error"); return; }
    } catch { /* the agent's UI is gone: fall back to stderr */ }
    console.error(`Extension error (${e.hookPath}): ${line}`);
  }
}

/** Every member of the agent's ExtensionAPI the adapter refuses, with why (for docs and tests). */
export const refusedMembers: Readonly<Record<string, string>> = REFUSED_MEMBERS;
