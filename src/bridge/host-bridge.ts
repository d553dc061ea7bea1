/**
 * The host's implementation of the rows of the bridge table (`methods.ts`) that need the runner:
 * what each method does over the runner's surface. Arguments arrive already checked against the
 * table (`isolation/host-calls.ts`); nothing else is reachable, and no host object is ever exposed
 * to a worker. The sandbox's one bridge (`bridge.ts`) calls these.
 */
import { Errors } from "../contract/errors.js";
import { HostLacksMethod, type HostObject } from "./host-setup.js";
import { presets } from "../policy/policy.js";
import { registryAnswer, registryRefusal } from "./model-registry-gate.js";
import { renderTheme } from "./render-theme.js";
import { outputText, terminalText, type TerminalTextOptions } from "../gates/terminal-text.js";
import { Deferred } from "./deferred.js";
import { LIMITS, METHOD } from "../../worker/wire.mjs";
import { mediatedExec, type ExecGate } from "./exec-gate.js";
import { AgentGate, memberRefusal, type AgentAccess, type Defer } from "./agent-gate.js";
import type { BRIDGE } from "./methods.js";
import type {
  HookDialogOptions, HookMessage, HookUIContext, ModelRegistry, NewSessionOptions, ReadonlySessionManager, SendMessageOptions, SessionManager,
} from "../contract/types.js";

/** The runner's side of the bridge: the handlers `initialize` wired in, read at call time. */
export interface BridgeSurface {
  sendMessage(message: HookMessage, options?: SendMessageOptions): void;
  appendEntry(customType: string, data?: unknown): void;
  ui(): HookUIContext;
  sessionManager: ReadonlySessionManager;
  modelRegistry: ModelRegistry;
  isIdle(): boolean;
  hasQueuedMessages(): boolean;
  abort(): void;
  waitForIdle(): Promise<void>;
  newSession(options: NewSessionOptions): Promise<{ cancelled: boolean }>;
  branch(entryId: string): Promise<{ cancelled: boolean }>;
  navigateTree(targetId: string, options: { summarize?: boolean }): Promise<{ cancelled: boolean }>;
  log(level: string, line: string): void;
  /** `pi.getFlag(name)` of this hook: the agent's value (hookbox/extension), undefined elsewhere. */
  getFlag(name: string): boolean | string | undefined;
  cwd: string;
  /** The agent's own members, when hookbox runs inside an agent (hookbox/extension). */
  agent?: () => AgentAccess | undefined;
  /** `pi.events.emit` of this hook: to the other hooks of its runner (the modules of one isolate()). */
  busEmit?(channel: string, data: unknown): void;
}

/** The bound on `pi.events.emit`: per hook, at most `max` in any `windowMs`. */
export const BUS = Object.freeze({ max: 256, windowMs: 1_000 });

/** Runs the `setup` callback of `ctx.newSession` in the worker. */
export type RunSetup = () => Promise<void>;

/** Run one method of the table (not one `ServedElsewhere`) with arguments its row checked. */
export type HostMethods = (method: string, args: unknown[]) => unknown;

/**
 * `target`'s member `name`, looked up on the object and its classes' prototypes only: the walk
 * stops before `Object.prototype` and `Function.prototype`, so a hook-chosen name never reaches
 * their members, nor anything planted on them.
 */
function memberOf(target: unknown, name: string): unknown {
  for (let o = target; o !== null && (typeof o === "object" || typeof o === "function") && o !== Object.prototype && o !== Function.prototype; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, name);
    if (d) return "value" in d ? d.value : d.get?.call(target);
  }
  return undefined;
}

/**
 * Call `target[name](...args)` only if `name` is a method the object really has, not a prototype
 * builtin. A method of the contract (`contract`) the host's object lacks is the host's set-up
 * error (`HostLacksMethod`); any other name is the hook's protocol violation.
 */
function callMethod(hookPath: string, what: string, target: unknown, name: string, args: unknown[], contract?: HostObject): unknown {
  const fn = memberOf(target, name);
  if (typeof fn !== "function") {
    if (contract) throw new HostLacksMethod(contract, name);
    throw Errors.protocolViolation(hookPath, `${what}.${name} is not a method the host offers`);
  }
  return fn.apply(target, args);
}


/**
 * Rows `bridge.ts` serves itself: `transform` (from load on), host modules (src/bridge/host-modules.ts),
 * `ctx.ui.custom()` (src/bridge/custom-ui.ts) and the scoped calls (src/bridge/command-scope.ts).
 */
type ServedElsewhere = typeof METHOD.transform | typeof METHOD.hostModule | typeof METHOD.hostModuleAwait
  | typeof METHOD.custom | typeof METHOD.customDone | typeof METHOD.customTui | typeof METHOD.customReady | typeof METHOD.setHeader | typeof METHOD.setFooter | typeof METHOD.footerData
  | typeof METHOD.scopedCall | typeof METHOD.scopedPost | typeof METHOD.scopedSync | typeof METHOD.toolUpdate | typeof METHOD.output | typeof METHOD.denied;

/** A dialog's options as they cross (src/bridge/methods.ts `dialog`). */
type DialogSpec = { timeout?: number; signal?: number };

// Arguments arrive checked against the table, so each implementation destructures them as its row says.
type Impl = (args: any) => unknown;

export function hostMethods(surface: BridgeSurface, hookPath: string, runSetup: RunSetup, gate: ExecGate = { policy: presets.trusted, record: () => {} },
  terminal: TerminalTextOptions = {}, defer?: Defer): HostMethods {
  const line = (text: string) => terminalText(text, terminal);
  const lines = (text: string) => terminalText(text, { ...terminal, multiline: true });
  const shownContent = (content: HookMessage["content"]): HookMessage["content"] => (typeof content === "string" ? lines(content)
    : content.map((part) => (part.type === "text" && typeof part.text === "string" ? { ...part, text: lines(part.text) } : part)));
  const dialogSignals = new Map<number, AbortController>();
  /**
   * Aborts that arrived before their dialog opened (a prompt waits its turn, and the module may
   * abort right after asking): the dialog opens aborted. Bounded: the oldest ids go first.
   */
  const abortedEarly = new Set<number>();
  const bus = { since: 0, count: 0, said: false };
  /**
   * Open a dialog with the options the hook gave (pi's timeout and AbortSignal), passed on only when
   * given: the host's UI dismisses it, as in-process. The hook's signal is a controller here that
   * the worker's `abortEditor` aborts.
   */
  const dialog = async <T>(spec: DialogSpec | undefined, open: (d: [] | [HookDialogOptions]) => Promise<T>, dismissed: T): Promise<T> => {
    if (spec === undefined) return open([]);
    const options: HookDialogOptions = spec.timeout === undefined ? {} : { timeout: spec.timeout };
    if (spec.signal === undefined) return open([options]);
    // Aborted before it opened: answered as a dismissed dialog, never shown (as the worker does for a signal already aborted).
    if (abortedEarly.delete(spec.signal)) return dismissed;
    const controller = new AbortController();
    dialogSignals.set(spec.signal, controller);
    try {
      return await open([{ ...options, signal: controller.signal }]);
    } finally {
      dialogSignals.delete(spec.signal);
    }
  };
  const later = new Deferred();
  const agent = new AgentGate(gate.policy, terminal, () => surface.agent?.(), hookPath, defer);
  /** Throws `effect_refused` when `member` (worker/extension-members.mjs `MEMBER_EFFECTS`) is above the hook's policy.effects. */
  const mayUse = (member: string, shown: string) => {
    const refused = memberRefusal(gate.policy, hookPath, member, shown);
    if (refused) throw refused;
  };
  let setupSession: SessionManager | undefined;

  const impl: Record<string, Impl> = {
    // Every text a prompt shows passes the terminal-text gate (src/gates/terminal-text.ts). A title
    // keeps its newlines and tabs ("Dangerous command:\n\n  rm -rf build\n\nAllow?"), as in-process.
    // The answer is the hook's own option (a tab in it was shown as spaces), not the text shown.
    [METHOD.select]: ([title, options, spec]: [string, string[], DialogSpec | undefined]) => {
      const shown = options.map(line);
      return dialog(spec, async (d) => {
        const picked = await surface.ui().select(lines(title), shown, ...d);
        const index = picked === undefined ? -1 : shown.indexOf(picked);
        return index >= 0 ? options[index] : picked;
      }, undefined);
    },
    [METHOD.confirm]: ([title, message, spec]) => dialog(spec, (d) => surface.ui().confirm(lines(title), lines(message), ...d), false),
    [METHOD.input]: ([title, placeholder, spec]) => dialog(spec, (d) => surface.ui().input(lines(title), placeholder == null ? undefined : line(placeholder), ...d), undefined),
    [METHOD.editor]: ([title, prefill, spec]) => dialog(spec, (d) => surface.ui().editor(lines(title), prefill == null ? undefined : lines(prefill), ...d), undefined),
    [METHOD.exec]: (a) => mediatedExec(hookPath, gate, surface.cwd, a),
    [METHOD.waitForIdle]: () => surface.waitForIdle(),
    [METHOD.newSession]: ([options, hasSetup]: [NewSessionOptions, boolean]) => {
      if (!hasSetup) return surface.newSession(options);
      return surface.newSession({
        ...options,
        setup: async (sm) => {
          setupSession = sm;
          try { await runSetup(); } finally { setupSession = undefined; }
        },
      });
    },
    [METHOD.setupCall]: ([name, args]) => {
      if (!setupSession) throw new Error(`the session manager given to setup is no longer open (${name} was called after setup returned)`);
      return callMethod(hookPath, "sessionManager", setupSession, name, args);
    },
    [METHOD.branch]: ([entryId]) => surface.branch(entryId),
    [METHOD.navigateTree]: ([targetId, options]) => surface.navigateTree(targetId, options),
    // A message the agent displays: its text passes the gate too (details are data, not shown as they are).
    [METHOD.sendMessage]: ([message, options]: [HookMessage, SendMessageOptions?]) => {
      mayUse("sendMessage", "pi.sendMessage");
      return surface.sendMessage({ ...message, content: shownContent(message.content) }, options);
    },
    [METHOD.appendEntry]: ([customType, data]) => {
      mayUse("appendEntry", "pi.appendEntry");
      return surface.appendEntry(customType, data);
    },
    [METHOD.notify]: ([message, type]) => surface.ui().notify(lines(message), type),
    [METHOD.setStatus]: ([key, value]) => surface.ui().setStatus(line(key), value === undefined ? undefined : line(value)),
    // Why the cast: the agent's UI takes undefined as pi's own extensions pass it, though its type says string.
    [METHOD.setEditorText]: ([value]) => surface.ui().setEditorText(value === undefined ? (value as unknown as string) : lines(value)),
    [METHOD.abortEditor]: ([signalId]) => {
      const open = dialogSignals.get(signalId);
      if (open) return open.abort();
      abortedEarly.add(signalId);
      if (abortedEarly.size > LIMITS.maxQueuedPrompts) abortedEarly.delete(abortedEarly.values().next().value!);
    },
    [METHOD.abort]: () => {
      mayUse("ctx.abort", "ctx.abort");
      return surface.abort();
    },
    [METHOD.log]: ([level, text]) => surface.log(level, outputText(text, gate.policy.terminal === "raw", terminal)),
    [METHOD.busEmit]: ([channel, data]) => {
      // At most BUS.max emits per hook in any BUS.windowMs: more are dropped, said once per window.
      const now = Date.now();
      if (now - bus.since >= BUS.windowMs) Object.assign(bus, { since: now, count: 0, said: false });
      if (++bus.count <= BUS.max) return surface.busEmit?.(channel, data);
      if (!bus.said) surface.log("warn", `[hookbox: pi.events.emit dropped: more than ${BUS.max} events in ${BUS.windowMs} ms]`);
      bus.said = true;
    },
    [METHOD.isIdle]: () => surface.isIdle(),
    [METHOD.hasQueuedMessages]: () => surface.hasQueuedMessages(),
    [METHOD.getEditorText]: () => surface.ui().getEditorText(),
    // A renderer called with a theme styles with that theme, as in the original (src/bridge/render-theme.ts).
    [METHOD.theme]: ([name, args]) => callMethod(hookPath, "theme", renderTheme() ?? surface.ui().theme, name, args),
    // Closed by policy.modelRegistry: keys and mutating methods only when granted (src/bridge/model-registry-gate.ts).
    [METHOD.modelRegistry]: ([name, args]) => {
      const refused = registryRefusal(gate.policy, name);
      if (refused) throw new Error(refused);
      // Past the gate a name is a method the policy lets the hook call ("all": any the host's registry
      // has, such as pi's getApiKeyAndHeaders); one the host's registry lacks is the host's gap, not the hook's fault.
      return later.wrap(`modelRegistry.${name}`, registryAnswer(gate.policy, callMethod(hookPath, "modelRegistry", surface.modelRegistry, name, args, "modelRegistry")));
    },
    [METHOD.session]: ([name, args]) => later.wrap(`sessionManager.${name}`, callMethod(hookPath, "sessionManager", surface.sessionManager, name, args, "sessionManager")),
    [METHOD.await]: ([id]) => later.take(id),
    [METHOD.getFlag]: ([name]) => surface.getFlag(name),
    [METHOD.agentGet]: ([member]) => agent.get(member),
    [METHOD.agentSet]: ([member, args]) => agent.set(member, args),
    [METHOD.agentSetModel]: ([provider, id]) => agent.setModel(provider, id),
    [METHOD.agentCompact]: ([options]) => agent.compact(options),
  } satisfies Record<Exclude<keyof typeof BRIDGE, ServedElsewhere>, Impl>;

  return (method, args) => {
    const fn = Object.hasOwn(impl, method) ? impl[method] : undefined;
    if (!fn) throw Errors.protocolViolation(hookPath, `unknown host call ${JSON.stringify(method)}`);
    return fn(args);
  };
}
