/**
 * What the hooks on the command line are written for (`--agent`): the original hook contract
 * (`hooks`), pi's extensions (`pi`) or oh-my-pi's (`omp`). An agent's events and what it refuses
 * are hookbox/extension's own (src/extension/carried.ts `carriedEvents`, src/extension/adapter.ts
 * `agentRefusal`, over worker/extension-members.mjs), so the CLI says what the agent would do. Without `--agent` it is
 * inferred from what the modules registered, and the output says so.
 */
import { AGENT_NOTIFICATIONS, EVENT_TYPES, isEventType } from "../contract/events.js";
import { carriedEvents } from "../extension/carried.js";
import type { Unloaded } from "../extension/adapter.js";
import type { LoadedHook } from "../runner/hook.js";
import { IsolatedHook } from "../runner/isolated-hook.js";

/** What a hook module is written for: `--agent`. */
export const AGENTS = {
  hooks: "the original hook contract: HookAPI, --hook modules",
  pi: "pi 0.73.1's ExtensionAPI: its events, tools, flags, shortcuts",
  omp: "oh-my-pi 18.2.3's extensions",
} as const;
export type AgentName = keyof typeof AGENTS;

/** The events a module written for `agent` can subscribe to (in pi and oh-my-pi: those hookbox/extension carries). */
export function agentEvents(agent: AgentName): readonly string[] {
  if (agent === "hooks") return EVENT_TYPES;
  const { results, notified } = carriedEvents(agent);
  return [...results, ...notified];
}

/** Every event some agent has: what `emit` and `replay` accept before the agent is known. */
export function anyAgentEvents(): readonly string[] {
  return [...new Set([...EVENT_TYPES, ...agentEvents("pi"), ...agentEvents("omp")])];
}

/** Is `type` an event `agent` sends? (Own names only.) */
export function isAgentEvent(agent: AgentName | undefined, type: string): boolean {
  return (agent === undefined ? anyAgentEvents() : agentEvents(agent)).includes(type);
}

/**
 * The agent the loaded modules are written for when `--agent` is not given, with why: `pi` when
 * one registers a tool, a flag or a shortcut (members only an agent serves) or subscribes to an
 * event pi has and the hook contract lacks; undefined (the hook contract) otherwise.
 */
export function inferAgent(hooks: readonly LoadedHook[]): { agent: "pi"; why: string } | undefined {
  const piOnly = agentEvents("pi").filter((e) => !isEventType(e));
  for (const hook of hooks) {
    if (!(hook instanceof IsolatedHook)) continue;
    const r = hook.registrations;
    const uses = r.tools?.[0] ? `registers the tool "${r.tools[0].name}"`
      : r.flags?.[0] ? `registers the flag "${r.flags[0].name}"`
      : r.shortcuts?.[0] ? `registers the shortcut "${r.shortcuts[0].key}"`
      : [...hook.handlers.keys()].filter((e) => piOnly.includes(e)).map((e) => `subscribes to pi's event "${e}"`)[0];
    if (uses) return { agent: "pi", why: `${hook.path} ${uses}` };
  }
  return undefined;
}

/**
 * The loaded modules the agent runs, and those it refuses (each disposed) with the error the
 * agent reports: an event it has not, a registration it cannot carry or that is above the
 * module's policy (hookbox/extension's own check, in load order).
 */
export async function screen(hooks: readonly LoadedHook[], agent: "pi" | "omp"): Promise<{ kept: LoadedHook[]; refused: Unloaded[] }> {
  // Loaded only when an agent's modules are screened: the adapter is a large graph for a command's start.
  const { agentRefusal } = await import("../extension/adapter.js");
  const kept: LoadedHook[] = [];
  const refused: Unloaded[] = [];
  const taken = new Set<string>();
  for (const hook of hooks) {
    const why = agentRefusal(hook, agent, taken);
    if (!why) { kept.push(hook); continue; }
    refused.push(why);
    await hook.dispose?.();
  }
  return { kept, refused };
}

/** What a module written for pi registered besides handlers and commands: tools, flags and shortcuts, as `check` lists them. */
export function agentRegistrations(hook: LoadedHook): { tools: Array<{ name: string; description?: string }>; flags: Array<{ name: string; description?: string }>; shortcuts: Array<{ key: string; description?: string }> } {
  if (!(hook instanceof IsolatedHook)) return { tools: [], flags: [], shortcuts: [] };
  const r = hook.registrations;
  const described = <T extends { description?: unknown }>(x: T) => (typeof x.description === "string" ? { description: x.description } : {});
  return {
    tools: (r.tools ?? []).map((t) => ({ name: t.name, ...described(t) })),
    flags: (r.flags ?? []).map((f) => ({ name: f.name, ...described(f) })),
    shortcuts: (r.shortcuts ?? []).map((s) => ({ key: s.key, ...described(s) })),
  };
}

/** Whether `type` is one of pi's notifications beyond the contract (its payload row is `AGENT_NOTIFICATIONS`'). */
export function isAgentNotification(type: string): type is keyof typeof AGENT_NOTIFICATIONS {
  return Object.hasOwn(AGENT_NOTIFICATIONS, type);
}
