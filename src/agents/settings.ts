/**
 * The hook table every routed agent writes the same way — `{ <event>: [{ matcher, hooks: [{ type:
 * "command", command, timeout, name }] }] }` — read by the agent's row: its events, its unit of
 * `timeout`, its default deadline. What the agent skips (an unknown event, a malformed group) is
 * skipped; a hook of another type is kept as refused, with the reason.
 */
import { z } from "zod";
import { hookAt } from "../approval/keys.js";
import type { AgentHook, CommandDialect, RefusedAgentHook } from "./dialect.js";

const handlerSchema = z.object({
  type: z.string(),
  command: z.string().optional(),
  name: z.string().optional(),
  timeout: z.number().positive().optional(),
  env: z.record(z.string(), z.string()).optional(),
}).passthrough();
const groupSchema = z.object({ matcher: z.string().optional(), hooks: z.array(z.unknown()) }).passthrough();

export function readHookTable(d: Pick<CommandDialect<never>, "events" | "timeoutUnitMs" | "defaultTimeoutMs">, table: Record<string, unknown>, file: string, source: AgentHook["source"]): { hooks: AgentHook[]; refused: RefusedAgentHook[] } {
  const hooks: AgentHook[] = [];
  const refused: RefusedAgentHook[] = [];
  for (const [event, groups] of Object.entries(table)) {
    if (!d.events.includes(event) || !Array.isArray(groups)) continue;
    groups.forEach((g, i) => {
      const group = groupSchema.safeParse(g);
      if (!group.success) return;
      const matcher = group.data.matcher;
      group.data.hooks.forEach((h, j) => {
        const at = hookAt(event, i, j);
        const handler = handlerSchema.safeParse(h);
        if (!handler.success) return;
        const { type, command, name } = handler.data;
        if (type !== "command" || !command) {
          refused.push({ source, file, at, event, name: name || command || "unknown-hook", ...(matcher !== undefined ? { matcher } : {}), reason: `a "${type}" hook, which hookbox does not run` });
          return;
        }
        hooks.push({
          source, file, at, event, command, name: name || command,
          timeoutMs: handler.data.timeout !== undefined ? handler.data.timeout * d.timeoutUnitMs : d.defaultTimeoutMs,
          ...(matcher !== undefined ? { matcher } : {}),
          ...(handler.data.env ? { env: handler.data.env } : {}),
        });
      });
    });
  }
  return { hooks, refused };
}
