/**
 * What Claude Code runs under `hookbox claude` (./claude.ts): `hookbox claude-hook` for every
 * routed event (src/claude/router.ts) and `hookbox claude-mcp` in place of each approved project
 * MCP server (src/claude/mcp-run.ts). A module of its own, loaded alone (./main.ts), because it
 * starts on every event: it loads the router, not the launcher.
 */
import { readFileSync } from "node:fs";
import { routeEvent } from "../claude/router.js";
import { loadPlan } from "../claude/plan.js";
import { McpRefused, runMcpServer } from "../claude/mcp-run.js";
import { withOtlp } from "../observe/otlp.js";
import type { Output } from "./output.js";
import { EXIT } from "./usage-error.js";

export const CLAUDE_HOOK_HELP = `Usage: hookbox claude-hook <plan file> <sha256>
       hookbox claude-mcp <plan file> <sha256> <server>

What hookbox claude's generated settings run: claude-hook for every routed event of Claude Code
(its JSON on stdin, answered as a command hook answers), claude-mcp in place of each approved MCP
server of the project's .mcp.json (the server in the sandbox, its stdio passed through). Not for
people: see hookbox claude --help.
`;

/**
 * `hookbox claude-hook <plan> <sha256>`: one event from Claude Code on stdin; answers as a command hook
 * does. Any failure of its own blocks on PreToolUse (exit 2), elsewhere is a non-blocking error.
 */
export async function claudeHook(args: string[], out: Output, _signal?: AbortSignal, err: Output = out): Promise<number> {
  let event = "PreToolUse";
  try {
    if (args.length !== 2) throw new Error("usage: hookbox claude-hook <plan file> <sha256> (Claude Code runs it; see hookbox claude)");
    const plan = loadPlan(args[0]!, args[1]!);
    const raw = readFileSync(0, "utf8");
    const input = JSON.parse(raw) as Record<string, unknown>;
    event = String(input.hook_event_name);
    const answer = await withOtlp(() => routeEvent(plan, input, raw, { spentMs: performance.now() }), { ...process.env, ...plan.otel });
    if (answer.code === 2 && event === "PreToolUse") return block(out, answer.stderr);
    if (answer.stdout) out.write(answer.stdout);
    if (answer.stderr) err.write(`${answer.stderr}\n`);
    return answer.code;
  } catch (e) {
    const message = `hookbox claude-hook failed, so ${event === "PreToolUse" ? "this tool call is blocked" : "no hook ran"}: ${(e as Error).message}`;
    if (event === "PreToolUse") return block(out, message);
    err.write(`${message}\n`);
    return event === "PermissionRequest" ? 2 : 1;
  }
}

/**
 * `hookbox claude-mcp <plan> <sha256> <server>`: what Claude Code starts in place of an approved
 * project MCP server (the managed route's view of `.mcp.json`): the plan checked by its sha256,
 * the server's approval checked again, then the server in the sandbox, stdio passed through.
 */
export async function claudeMcp(args: string[], _out: Output, _signal?: AbortSignal, err?: Output): Promise<number> {
  try {
    if (args.length !== 3) throw new McpRefused("usage: hookbox claude-mcp <plan file> <sha256> <server> (Claude Code runs it; see hookbox claude)");
    return await runMcpServer(loadPlan(args[0]!, args[1]!), args[2]!);
  } catch (e) {
    err?.write(`hookbox claude-mcp: the MCP server ${args[2] ?? ""} is not started: ${(e as Error).message}\n`);
    return EXIT.hookErrors;
  }
}

/**
 * Exit 2 with the reason as a JSON block on stdout and nothing on stderr: Claude Code 2.1.328 then
 * passes the reason as it is (checked on PreToolUse, the one event it is used on), where a stderr would be shown after this router's own command line
 * (`[node hookbox.mjs claude-hook <plan> <sha256>]: …`); the reason names the hook's own command.
 */
function block(out: Output, reason: string): 2 {
  out.write(JSON.stringify({ decision: "block", reason }));
  return 2;
}
