/**
 * pi's agent members as a module reaches them through hookbox/extension: `pi.getSessionName()`,
 * `pi.sendUserMessage()`, `pi.setModel()`, `ctx.getContextUsage()`, `ctx.ui.setWidget()`… The
 * agent's objects stay in the agent (src/extension/adapter.ts implements `AgentAccess` over them); this
 * gate decides what a module may ask, and rebuilds every value it sends:
 *
 * - Getters answer data: a JSON copy of what the agent returned (no function or object of the agent's).
 * - Each setter has the class of effect `MEMBER_EFFECTS` gives it (worker/extension-members.mjs):
 *   above the hook's `policy.effects` it is refused as `effect_refused` (reported, and thrown in
 *   the module at the call), naming the member and the policy field.
 * - Setters that change the agent (`sendUserMessage`, `setSessionName`, `setLabel`, `setActiveTools`,
 *   `setThinkingLevel`, `setModel`, `compact`) also run only under `policy.agent: "write"`
 *   (what `policy.effects: "substitute"` implies); under `"read"` each throws in the module at the
 *   call, naming the member and the policy. `ui.setWidget`, `ui.setTitle` and the working row's
 *   (`ui.setWorking*`, `ui.setHiddenThinkingLabel`) only draw, like `ctx.ui.setStatus`: any policy.
 *   `shutdown` only stops the agent (a restrict effect, as `ctx.abort`): `policy.effects` alone decides it.
 * - Names and texts bound for the terminal pass the terminal-text gate (a title or a session name
 *   without any control, widget lines keeping SGR colours only); tool names must be safe keys.
 * - `sendUserMessage` starts a turn of the agent: at most `USER_MESSAGES.max` per hook in any
 *   `USER_MESSAGES.windowMs`; more throw in the module (a flood never reaches the agent).
 * - `setModel` crosses as a provider and an id, looked up in the agent's own registry: never a
 *   model object the module built.
 */
import { isSafeKey } from "../gates/safe-keys.js";
import { terminalLines, terminalText, type TerminalTextOptions } from "../gates/terminal-text.js";
import { agentAccess, type Policy } from "../policy/policy.js";
import { Errors, type HookFailure } from "../contract/errors.js";
import { MEMBER_EFFECTS } from "../../worker/extension-members.mjs";
import { allows } from "../../worker/effects.mjs";
import type { HookMessage } from "../contract/types.js";

/** What the agent offers (src/extension/adapter.ts): each member by name, run on the agent's own `pi` and `ctx`. */
export interface AgentAccess {
  get(member: string): unknown;
  /** A promise where the agent answers one of the change (oh-my-pi's `SETTLED_SETTERS`), else nothing. */
  set(member: string, args: unknown[]): Promise<void> | undefined;
  /** A setter the agent answers at once (`ANSWERED_SETTERS`): its answer. */
  answer(member: string, args: unknown[]): unknown;
  setModel(provider: string, id: string): Promise<boolean>;
  /** `ctx.compact(options)`, settled when the agent's compaction completes (its result) or fails. */
  compact(options: { customInstructions?: string } | undefined): Promise<unknown>;
}

/** Runs an effect on the agent now, or holds it to run later in its order (see `AgentGate`). */
export type Defer = (apply: () => void) => void;

/** What `policy.agent` lets a module do with the agent: read it, or also change it. */
export type AgentPolicyAccess = "read" | "write";

/**
 * Setters an agent may answer with a promise of the change (oh-my-pi 18's `setActiveTools` and
 * `setSessionName`: `Promise<void>`), which a module awaits before going on (oh-my-pi's plan-mode.ts
 * awaits setActiveTools, then sends the message that starts the next turn). Such a call is applied at
 * once, after the effects held before it, and answered when the change settled: the module's next
 * effect reaches the agent after it, as in the agent's process (src/isolation/host-calls.ts). Not
 * `sendUserMessage`: its promise is of the turn it starts.
 */
export const SETTLED_SETTERS: ReadonlySet<string> = new Set(["setActiveTools", "setSessionName"]);

/**
 * Setters the agent answers at once with the outcome (pi's `ctx.ui.setTheme(name)`: `{ success, error? }`),
 * which the module reads at the call: applied then, after the effects held before it, and answered
 * with the agent's outcome as data.
 */
export const ANSWERED_SETTERS: ReadonlySet<string> = new Set(["ui.setTheme"]);

/** Setters that only draw on the agent's screen: allowed under any policy. */
const DRAWS: ReadonlySet<string> = new Set(["ui.setWidget", "ui.setTitle", "ui.setWorkingMessage", "ui.setWorkingIndicator", "ui.setWorkingVisible", "ui.setHiddenThinkingLabel", "ui.setTheme"]);

/** The bound on `sendUserMessage`: per hook, at most `max` in any `windowMs`. */
export const USER_MESSAGES = Object.freeze({ max: 16, windowMs: 10_000 });

/** How a setter (`AGENT_SETTERS`, worker/wire.mjs) is named where the module calls it: `pi.x`, `ctx.compact`, `ctx.ui.setWidget`. */
export function memberName(member: string): string {
  return member === "compact" || member === "shutdown" || member.startsWith("ui.") ? `ctx.${member}` : `pi.${member}`;
}

/** Refuses `member` (as `MEMBER_EFFECTS` keys it) when its effect is above `policy.effects`: an `effect_refused` failure to throw. */
export function memberRefusal(policy: Policy, hookPath: string, member: string, shown = member): HookFailure | undefined {
  const effect = Object.hasOwn(MEMBER_EFFECTS, member) ? MEMBER_EFFECTS[member]! : "substitute";
  return allows(policy.effects, effect) ? undefined : Errors.memberRefused(hookPath, shown, effect, policy.effects);
}

export class AgentGate {
  readonly #policy: Policy;
  readonly #hookPath: string;
  readonly #terminal: TerminalTextOptions;
  readonly #agent: () => AgentAccess | undefined;
  readonly #defer: Defer;
  #sent: number[] = [];

  /** `defer` runs a setter's effect on the agent, once its checks passed: now, or when the host applies the worker's turn (src/isolation/channel.ts). */
  constructor(policy: Policy, terminal: TerminalTextOptions, agent: () => AgentAccess | undefined, hookPath = "", defer: Defer = (apply) => apply()) {
    this.#policy = policy;
    this.#hookPath = hookPath;
    this.#terminal = terminal;
    this.#agent = agent;
    this.#defer = defer;
  }

  get(member: string): unknown {
    const value = this.#require(member).get(member);
    return value === undefined ? undefined : JSON.parse(JSON.stringify(value)) as unknown;
  }

  set(member: string, args: unknown[]): Promise<void> | { success: boolean; error?: string } | undefined {
    const shown = memberName(member);
    const refused = memberRefusal(this.#policy, this.#hookPath, shown.startsWith("pi.") ? member : shown, shown);
    if (refused) throw refused;
    if (!DRAWS.has(member) && MEMBER_EFFECTS[shown] !== "restrict") this.#mayWrite(`pi.${member}`);
    const agent = this.#require(member);
    if (member === "sendUserMessage") this.#take();
    const gated = this.#gated(member, args);
    if (SETTLED_SETTERS.has(member)) return agent.set(member, gated);
    if (ANSWERED_SETTERS.has(member)) return outcome(agent.answer(member, gated));
    this.#defer(() => void agent.set(member, gated));
    return undefined;
  }

  setModel(provider: string, id: string): Promise<boolean> {
    const refused = memberRefusal(this.#policy, this.#hookPath, "setModel", "pi.setModel");
    if (refused) throw refused;
    this.#mayWrite("pi.setModel");
    return this.#require("setModel").setModel(provider, id);
  }

  /** `ctx.compact` with callbacks: gated as the setter is; answers pi's result as data, for the module's onComplete. */
  async compact(options: { customInstructions?: string } | undefined): Promise<unknown> {
    const refused = memberRefusal(this.#policy, this.#hookPath, "ctx.compact", "ctx.compact");
    if (refused) throw refused;
    this.#mayWrite("pi.compact");
    const result = await this.#require("compact").compact(options);
    return result === undefined ? undefined : JSON.parse(JSON.stringify(result)) as unknown;
  }

  #require(member: string): AgentAccess {
    const agent = this.#agent();
    if (!agent) throw new Error(`${member} is a member of the agent's extension API, and this host runs no agent (it is offered inside pi, through hookbox/extension)`);
    return agent;
  }

  #mayWrite(what: string): void {
    const access: AgentPolicyAccess = agentAccess(this.#policy);
    if (access !== "write") throw new Error(`${what} is refused by policy.agent "${access}": it changes the agent; policy.agent: "write" grants it`);
  }

  #take(): void {
    const now = Date.now();
    this.#sent = this.#sent.filter((t) => now - t < USER_MESSAGES.windowMs);
    if (this.#sent.length >= USER_MESSAGES.max) {
      throw new Error(`pi.sendUserMessage was refused: more than ${USER_MESSAGES.max} user messages in ${USER_MESSAGES.windowMs} ms (each starts a turn of the agent)`);
    }
    this.#sent.push(now);
  }

  /** The arguments as the agent gets them: texts for the terminal gated, names checked. */
  #gated(member: string, args: unknown[]): unknown[] {
    const plain = (text: string) => terminalText(text, { colors: false });
    const lines = (text: string) => terminalText(text, { ...this.#terminal, multiline: true });
    switch (member) {
      case "sendUserMessage": {
        const [content, options] = args as [HookMessage["content"], unknown];
        const shown = typeof content === "string" ? lines(content)
          : content.map((part) => (part.type === "text" ? { ...part, text: lines(part.text) } : part));
        return options === undefined ? [shown] : [shown, options];
      }
      case "setSessionName": return [plain(args[0] as string)];
      case "setLabel": return [args[0], args[1] === undefined ? undefined : plain(args[1] as string)];
      case "setActiveTools": {
        const names = args[0] as string[];
        const bad = names.find((n) => !isSafeKey(n) || plain(n) !== n);
        if (bad !== undefined) throw new Error(`pi.setActiveTools: ${JSON.stringify(plain(bad))} is not a tool name`);
        return [names];
      }
      case "ui.setTitle": case "ui.setTheme": return [plain(args[0] as string)];
      case "ui.setWorkingMessage": case "ui.setHiddenThinkingLabel": return args.length === 0 ? [] : [plain(args[0] as string)];
      case "ui.setWorkingIndicator": {
        // Frames pi renders verbatim: each one line, colours kept only as the policy's terminal setting allows.
        const options = args[0] as { frames?: string[]; intervalMs?: number } | undefined;
        return options?.frames === undefined ? args : [{ ...options, frames: options.frames.map((f) => terminalText(f, this.#terminal)) }];
      }
      case "ui.setWidget": {
        const [key, content, options] = args as [string, string[] | undefined, unknown];
        return [plain(key), content === undefined ? undefined : terminalLines(content, this.#terminal), options];
      }
      default: return args;
    }
  }
}

/** The agent's `{ success, error? }` as data (an agent that answers otherwise: a failure saying so). */
function outcome(value: unknown): { success: boolean; error?: string } {
  const v = value as { success?: unknown; error?: unknown } | undefined;
  if (typeof v?.success !== "boolean") return { success: false, error: "the agent gave no outcome" };
  return typeof v.error === "string" ? { success: v.success, error: terminalText(v.error, { colors: false, multiline: true }) } : { success: v.success };
}
