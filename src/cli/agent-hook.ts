/**
 * `hookbox <agent>-hook <plan> <sha256>` (codex-hook, gemini-hook): what the routing hook a launcher
 * gives the agent runs for every event: the plan, refused if it is not the one the launcher wrote,
 * the event on stdin, routed by the agent's row of the dialect table, answered as a command hook does. Any failure of its own blocks on the row's fail-closed
 * events, elsewhere is a warning.
 */
import { readFileSync } from "node:fs";
import type { AgentPlan, CommandDialect } from "../agents/dialect.js";
import { route } from "../agents/router.js";
import { loadPlan } from "../claude/plan.js";
import type { Output } from "./render.js";

export function agentHook<O extends object>(d: CommandDialect<O>, name: string): (args: string[], out: Output, signal?: AbortSignal, err?: Output) => Promise<number> {
  return async (args, out, _signal, err = out) => {
    let event = [...d.failClosed][0]!;
    try {
      if (args.length !== 2) throw new Error(`usage: hookbox ${name}-hook <plan file> <sha256> (${d.agent} runs it; see hookbox ${name})`);
      const plan = loadPlan<AgentPlan>(args[0]!, args[1]!, `hookbox ${name}`);
      const raw = readFileSync(0, "utf8");
      const input = JSON.parse(raw) as Record<string, unknown>;
      event = String(input.hook_event_name);
      const answer = await route(d, plan, input, raw, { spentMs: performance.now() });
      if (answer.stdout) out.write(answer.stdout);
      if (answer.stderr) err.write(`${answer.stderr}\n`);
      return answer.code;
    } catch (e) {
      const closed = d.failClosed.has(event);
      const message = `hookbox ${name}-hook failed, so ${closed ? "this call is blocked" : "no hook ran"}: ${(e as Error).message}`;
      const reply = closed ? d.reply({ blocked: message }) : d.reply({ warnings: [message] });
      if (reply.stdout) out.write(reply.stdout);
      if (reply.stderr) err.write(`${reply.stderr}\n`);
      return reply.code;
    }
  };
}
