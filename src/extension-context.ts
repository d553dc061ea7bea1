/**
 * The agent's context, as hookbox's runner needs it before any event: pi hands its context
 * (`ctx`) to each handler call, while a `HookRunner` takes its session manager, model registry and
 * UI once. These stand-ins forward each call, by a closed list of method names, to the context of
 * the latest call the agent made.
 */
import { MODEL_REGISTRY_METHODS, SESSION_MANAGER_METHODS } from "./agent-types.js";
import type { HookUIContext, ModelRegistry, ReadonlySessionManager } from "./types.js";

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
}

const UI_METHODS = ["select", "confirm", "input", "editor", "notify", "setStatus", "setEditorText", "getEditorText", "custom"] as const;
/**
 * The methods of pi's `Theme` that take and return plain data. Why forwarders rather than pi's
 * object: pi's `ctx.ui.theme` is a Proxy over its global theme, whose methods the host's bridge
 * cannot see as own or prototype members, so `theme.fg()` from a module was refused.
 */
const THEME_METHODS = ["fg", "bg", "bold", "italic", "underline", "inverse", "strikethrough", "getFgAnsi", "getBgAnsi", "getColorMode"] as const;

export class LiveAgentContext {
  current: AgentContext | undefined;
  readonly sessionManager: ReadonlySessionManager;
  readonly modelRegistry: ModelRegistry;
  readonly ui: HookUIContext;

  constructor() {
    this.sessionManager = this.#forwarders(SESSION_MANAGER_METHODS, () => this.require().sessionManager) as unknown as ReadonlySessionManager;
    this.modelRegistry = this.#forwarders(MODEL_REGISTRY_METHODS, () => this.require().modelRegistry) as unknown as ModelRegistry;
    const ui = this.#forwarders(UI_METHODS, () => this.require().ui);
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

  /** One function per name (a closed list), calling that method of the object `target()` returns at call time. */
  #forwarders(names: readonly string[], target: () => Record<string, any>): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null);
    for (const name of names) {
      out[name] = (...args: unknown[]) => {
        const object = target();
        const method = object[name];
        if (typeof method !== "function") throw new Error(`the agent's ${name} is not available in this version of the agent`);
        return method.apply(object, args);
      };
    }
    return out;
  }
}
