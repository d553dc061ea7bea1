/**
 * `hookbox <agent>-hook <plan> <sha256>` (claude-hook, codex-hook, gemini-hook): what the routing
 * hook a launcher gives the agent runs for every event (its arguments read by the row's one
 * definition, src/agents/routing-hook.ts): the plan, refused if it is not the one the
 * launcher wrote, the event on stdin, routed by the agent's row of the dialect table
 * (src/agents/router.ts), answered as a command hook does, spans exported when the launcher asked
 * for OTLP. Any failure of its own blocks on the row's fail-closed events, elsewhere is a warning.
 */
import { readFileSync } from "node:fs";
import type { AgentReply, Dialect, RoutedHook, RoutePlan } from "../agents/dialect.js";
import { route } from "../agents/router.js";
import { loadPlan } from "../agents/plan.js";
import { routingArgs } from "../agents/routing-hook.js";
import { withOtlp } from "../observe/otlp.js";
import type { Output } from "./output.js";

export function routingHook<O extends object, H extends RoutedHook, P extends RoutePlan<H>>(d: Dialect<O, H, P>): (args: string[], out: Output, signal?: AbortSignal, err?: Output) => Promise<number> {
  const write = (reply: AgentReply, out: Output, err: Output) => {
    if (reply.stdout) out.write(reply.stdout);
    if (reply.stderr) err.write(`${reply.stderr}\n`);
    return reply.code;
  };
  return async (args, out, _signal, err = out) => {
    let event = [...d.failClosed][0]!;
    try {
      const { planFile, sha256 } = routingArgs(d, args);
      const plan = loadPlan<P>(planFile, sha256, `hookbox ${d.launcher}`);
      const raw = readFileSync(0, "utf8");
      const input = JSON.parse(raw) as Record<string, unknown>;
      event = String(input.hook_event_name);
      const answer = await withOtlp(() => route(d, plan, input, raw, { spentMs: performance.now() }), { ...process.env, ...plan.otel });
      return write(d.written(event, answer), out, err);
    } catch (e) {
      const message = `hookbox ${d.launcher}-hook failed, so ${d.failClosed.has(event) ? "this call is blocked" : "no hook ran"}: ${(e as Error).message}`;
      return write(d.routerFailed(event, message), out, err);
    }
  };
}
