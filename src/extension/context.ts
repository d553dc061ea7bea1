/**
 * The agent's context, as hookbox's runner needs it before any event: pi hands its context
 * (`ctx`) to each handler call, while a `HookRunner` takes its session manager, model registry and
 * UI once. These stand-ins forward each call, by a closed list of method names, to the context of
 * the latest call the agent made.
 */
import { MODEL_REGISTRY_METHODS, SESSION_MANAGER_METHODS } from "../contract/agent-types.js";
import type { AgentAccess } from "../bridge/agent-gate.js";
import { HostLacksMethod, type HostObject } from "../bridge/host-setup.js";
import type { HookUIContext, ModelRegistry, ReadonlySessionManager } from "../contract/types.js";

/** The part of pi's `ExtensionContext` the adapter reads. */
export interface AgentContext {
  ui: Record<string, any>;
  hasUI: boolean;
  cwd: string;
  sessionManager: Record<string, any>;
  modelRegistry: Record<string, any>;
  model: any;
  isIdle(): boolean;
  abort(): void;
  hasPendingMessages(): boolean;
  getContextUsage?(): unknown;
  getSystemPrompt?(): string;
  compact?(options?: { customInstructions?: string; onComplete?: (result: unknown) => void; onError?: (error: Error) => void }): void;
  shutdown?(): void;
}

const UI_METHODS = ["select", "confirm", "input", "editor", "notify", "setStatus", "setEditorText", "getEditorText", "setHeader", "setFooter"] as const;
/**
 * The methods of pi's `Theme` that take and return plain data. Why forwarders rather than pi's
 * object: pi's `ctx.ui.theme` is a Proxy over its global theme, whose methods the host's bridge
 * cannot see as own or prototype members, so `theme.fg()` from a module was refused.
 */
const THEME_METHODS = ["fg", "bg", "bold", "italic", "underline", "inverse", "strikethrough", "getFgAnsi", "getBgAnsi", "getColorMode"] as const;

/** pi's members of `pi`, `ctx` and `ctx.ui` a module reaches by name (src/bridge/agent-gate.ts checked and gated the arguments). */
const ON_PI = new Set(["getSessionName", "getActiveTools", "getAllTools", "getCommands", "getThinkingLevel",
  "sendUserMessage", "setSessionName", "setLabel", "setActiveTools", "setThinkingLevel"]);
const ON_CTX = new Set(["getContextUsage", "getSystemPrompt", "hasPendingMessages", "compact", "shutdown"]);
const ON_UI: Record<string, string> = Object.fromEntries(["getAllThemes", "setTheme", "setWidget", "setTitle", "setWorkingMessage", "setWorkingIndicator", "setWorkingVisible", "setHiddenThinkingLabel"].map((m) => [`ui.${m}`, m]));

/** The agent's members, by a closed list of names, on its `pi` and on the context of its latest call. */
export function agentAccess(pi: Record<string, any>, live: LiveAgentContext): AgentAccess {
  const run = (member: string, args: unknown[]): unknown => {
    const [target, name] = ON_PI.has(member) ? [pi, member]
      : ON_CTX.has(member) ? [live.require() as unknown as Record<string, any>, member]
      : Object.hasOwn(ON_UI, member) ? [live.require().ui, ON_UI[member]!]
      : [undefined, member];
    const fn = target?.[name];
    if (typeof fn !== "function") throw new Error(`the agent's ${member} is not available in this version of the agent`);
    return fn.apply(target, args);
  };
  return {
    get: (member) => run(member, []),
    answer: (member, args) => run(member, args),
    set: (member, args) => {
      const value = run(member, args);
      // oh-my-pi 18's setActiveTools and setSessionName answer a promise of the change (SETTLED_SETTERS).
      return typeof (value as PromiseLike<unknown> | undefined)?.then === "function" ? Promise.resolve(value).then(() => undefined) : undefined;
    },
    setModel: async (provider, id) => {
      const model = live.require().modelRegistry.find?.(provider, id);
      if (!model) throw new Error(`pi.setModel: the agent's model registry has no model ${JSON.stringify(provider)}/${JSON.stringify(id)}`);
      if (typeof pi.setModel !== "function") throw new Error("the agent's setModel is not available in this version of the agent");
      return pi.setModel(model);
    },
    // pi calls back when the compaction ends; the module's own callbacks run in its worker on the answer.
    compact: (options) => new Promise((resolve, reject) => {
      const compact = live.require().compact;
      if (typeof compact !== "function") throw new Error("the agent's compact is not available in this version of the agent");
      compact.call(live.require(), { ...options, onComplete: resolve, onError: reject });
    }),
  };
}

export class LiveAgentContext {
  current: AgentContext | undefined;
  readonly sessionManager: ReadonlySessionManager;
  readonly modelRegistry: ModelRegistry;
  readonly ui: HookUIContext;

  constructor() {
    this.sessionManager = this.#forwarders(SESSION_MANAGER_METHODS, () => this.require().sessionManager, "sessionManager") as unknown as ReadonlySessionManager;
    this.modelRegistry = this.#anyMethod(this.#forwarders(MODEL_REGISTRY_METHODS, () => this.require().modelRegistry, "modelRegistry"),
      () => this.require().modelRegistry, "modelRegistry") as unknown as ModelRegistry;
    const ui = this.#forwarders(UI_METHODS, () => this.require().ui);
    const live = this;
    // hookbox's custom() factory takes (tui, theme, done); pi's passes (tui, theme, keybindings, done).
    ui.custom = (factory: (tui: unknown, theme: unknown, done: unknown) => unknown, options?: unknown) =>
      live.require().ui.custom((tui: unknown, theme: unknown, _keybindings: unknown, done: unknown) => factory(tui, theme, done), options);
    Object.defineProperty(ui, "theme", { enumerable: true, value: Object.freeze(this.#forwarders(THEME_METHODS, () => this.require().ui.theme)) });
    this.ui = ui as unknown as HookUIContext;
  }

  set(ctx: AgentContext): void {
    this.current = ctx;
  }

  require(): AgentContext {
    if (!this.current) throw new Error("hookbox/extension: the agent has not called any handler yet, so its context is not known");
    return this.current;
  }

  /**
   * `known`, answering any other method name too: the agent's registry has methods beyond the
   * contract (pi's `getApiKeyAndHeaders`) that `policy.modelRegistry: "all"` lets a hook call, so
   * which names pass is the policy's gate (src/bridge/model-registry-gate.ts), not this list.
   */
  #anyMethod(known: Record<string, unknown>, target: () => Record<string, any>, contract: HostObject): Record<string, unknown> {
    const made = new Map<string, unknown>();
    const forwarder = (name: string) => {
      if (Object.hasOwn(known, name)) return known[name];
      if (!made.has(name)) made.set(name, this.#forwarders([name], target, contract)[name]);
      return made.get(name);
    };
    return new Proxy(known, {
      get: (_t, name) => (typeof name === "string" ? forwarder(name) : undefined),
      // The bridge looks a method up by own property (never a prototype builtin): each name is one, configurable.
      getOwnPropertyDescriptor: (_t, name) => (typeof name === "string" ? { value: forwarder(name), writable: false, enumerable: false, configurable: true } : undefined),
    });
  }

  /**
   * One function per name (a closed list), calling that method of the object `target()` returns at
   * call time; a method the agent's session manager or registry lacks is the host's `HostLacksMethod`.
   */
  #forwarders(names: readonly string[], target: () => Record<string, any>, contract?: HostObject): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null);
    for (const name of names) {
      out[name] = (...args: unknown[]) => {
        const object = target();
        const method = object[name];
        if (typeof method !== "function") {
          if (contract) throw new HostLacksMethod(contract, name);
          throw new Error(`the agent's ${name} is not available in this version of the agent`);
        }
        return method.apply(object, args);
      };
    }
    return out;
  }
}
