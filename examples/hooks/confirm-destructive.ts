// Asks before a destructive shell command; blocks it when there is no UI to ask.
//   hookbox emit examples/hooks/confirm-destructive.ts --event tool_call --confirm no \
//     --payload '{"toolName":"bash","toolCallId":"1","input":{"command":"rm -rf build"}}'
import type { HookAPI } from "hookbox/hooks";

const DESTRUCTIVE = /\brm\s+-\w*r\w*f|\bgit\s+(reset\s+--hard|clean\s+-\w*f|push\s+--force)/;

export default function (pi: HookAPI) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash") return undefined;
    const command = String(event.input.command ?? "");
    if (!DESTRUCTIVE.test(command)) return undefined;
    if (!ctx.hasUI) return { block: true, reason: `destructive command blocked (no UI to confirm): ${command}` };
    const ok = await ctx.ui.confirm("Destructive command", `Allow: ${command}`);
    pi.logger.info(`${ok ? "allowed" : "denied"}: ${command}`);
    return ok ? undefined : { block: true, reason: "denied by the user" };
  });
}
