/**
 * The routing hook a launcher gives the agent, one per event, in place of the agent's own hooks:
 * `hookbox <launcher>-hook <plan file> <sha256>`, named by the agent's row (`launcher`), written by
 * the launcher (`routingCommand`) and read back by the router's entry (`routingArgs`, in
 * src/cli/agent-hook.ts) from this one definition; and its deadline, over the slowest routed hook's
 * own, so that a hook's own deadline passes first and the router still answers (when the agent's
 * passes, it cancels the router, a non-blocking error: fail open).
 */
import type { Dialect } from "./dialect.js";

/** Margin over the slowest hook's timeout for the routing hook's own. */
export const ROUTER_MARGIN_MS = 30_000;
/** The routing hook's timeout over hooks of these deadlines, in ms. */
export const routerTimeoutMs = (hooksMs: readonly number[]): number => Math.max(0, ...hooksMs) + ROUTER_MARGIN_MS;

/** The hookbox the routing hook runs again: a node and hookbox's script (bin/hookbox.mjs). */
export interface Hookbox { node: string; script: string }

/** This hookbox: the node running it, and the script that started it. */
export const thisHookbox = (): Hookbox => ({ node: process.execPath, script: process.env.HOOKBOX_SCRIPT || process.argv[1]! });

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** The routing hook's command line: `hookbox`, the row's `<launcher>-hook`, the plan and its sha256 (the agent reads it from where the model cannot write, so a plan rewritten on disk is refused). */
export function routingCommand(d: Pick<Dialect, "launcher">, hookbox: Hookbox, planFile: string, sha256: string): string {
  return `${quote(hookbox.node)} ${quote(hookbox.script)} ${d.launcher}-hook ${quote(planFile)} ${sha256}`;
}

/** The plan file and its sha256, from the arguments of the row's `<launcher>-hook` as `routingCommand` wrote them; anything else throws the usage. */
export function routingArgs(d: Pick<Dialect, "launcher" | "agent">, args: readonly string[]): { planFile: string; sha256: string } {
  if (args.length !== 2) throw new Error(`usage: hookbox ${d.launcher}-hook <plan file> <sha256> (${d.agent} runs it; see hookbox ${d.launcher})`);
  return { planFile: args[0]!, sha256: args[1]! };
}
