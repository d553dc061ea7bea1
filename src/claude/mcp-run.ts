/**
 * One run of a project's approved stdio MCP server (`hookbox claude-mcp`, which Claude Code starts
 * in its place from the read-only view of `.mcp.json`): its approval checked again against the
 * files as they are now, then the server in a project hook's sandbox (./granted.ts: no network,
 * the project read-only with its writes recorded and discarded, an empty home, none of the user's
 * variables) with the grants of its approval, Claude Code's stdio passed straight through. What the
 * sandbox refused it is said once Claude Code ends (the launcher prints the plan's notices).
 */
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { pathList } from "../contract/errors.js";
import { ApprovalStore, projectKey } from "../approval/store.js";
import { sandboxAvailability, sandboxLauncher } from "../isolation/bubblewrap/bwrap.js";
import { grantCommand, parseGrants, type Grant } from "../policy/grants.js";
import { grantedSandbox, type GrantedSandbox } from "./granted.js";
import { checkMcpServers, expandGranted, type McpServer } from "./mcp.js";
import { mcpKey } from "../approval/keys.js";
import type { ClaudePlan } from "./plan.js";
import { projectGrants } from "./project-run.js";
import { SANDBOX_MEMORY_MB } from "../agents/sandbox.js";
import { SANDBOX_PATH, SYSTEM_READS } from "../isolation/bubblewrap/system-reads.js";

/** Why a server was not started: said on stderr (Claude Code logs it as the server's failure). */
export class McpRefused extends Error {
  override readonly name = "McpRefused";
}

/** The event name a server's sandbox is made for (no tool target: `write:tool-target` is a hook's). */
const EVENT = "McpServer";
/** How long a server asked to stop (stdin closed) has before it is killed. */
const STOP_GRACE_MS = 2_000;

/** The server of `plan` named `name`, checked, as its sandbox's parts; throws McpRefused saying why not. */
export async function prepareMcpServer(plan: ClaudePlan, name: string): Promise<{ server: McpServer; grants: Grant[]; granted: string[]; env: Record<string, string | undefined>; argv: string[] }> {
  const planned = plan.mcp?.[name];
  if (!planned) throw new McpRefused(`the plan holds no approved MCP server named ${name}`);
  const server: McpServer = { name, file: planned.file, entry: planned.entry, kind: "stdio" };
  const store = new ApprovalStore(plan.approvals ? { dir: plan.approvals } : {});
  const [failure] = await checkMcpServers(store, plan.project, [server]);
  if (failure) throw new McpRefused(`${failure.message} (${failure.code})`);
  const granted = store.grants(plan.project, mcpKey(server));
  let grants: Grant[];
  try {
    grants = parseGrants(granted, plan.project);
  } catch (err) {
    throw new McpRefused(`its approval carries a grant hookbox does not give (${(err as Error).message}); run hookbox trust again`);
  }
  // Only the variables its approval grants reach it, in its env and in `${NAME}` of its command line.
  const given: Record<string, string | undefined> = Object.fromEntries(grants.flatMap((g) => (g.kind === "env" ? [[g.name, process.env[g.name]]] : [])));
  const own = typeof server.entry.env === "object" && server.entry.env !== null ? (server.entry.env as Record<string, unknown>) : {};
  const env = Object.fromEntries(Object.entries(own).map(([k, v]) => [k, expandGranted(String(v), given)]));
  const args = Array.isArray(server.entry.args) ? server.entry.args.map((a) => expandGranted(String(a), given)) : [];
  return { server, grants, granted, env, argv: [expandGranted(String(server.entry.command), given), ...args] };
}

/** Run the server `name` of `plan` in the sandbox with stdio inherited; resolves with its exit code. */
export async function runMcpServer(plan: ClaudePlan, name: string): Promise<number> {
  const avail = sandboxAvailability();
  if (!avail.ok) throw new McpRefused(`it must run in the sandbox, which cannot be built here: ${avail.reason}`);
  const { server, grants, env, argv } = await prepareMcpServer(plan, name);
  const base = {
    project: plan.project, ...(plan.projectSource ? { projectSource: plan.projectSource } : {}), systemReads: SYSTEM_READS, path: SANDBOX_PATH, memoryMb: SANDBOX_MEMORY_MB,
    // HOME names the user's HOME path, where the sandbox mounts its own empty home; the server's own env (as approved) after.
    env: { LANG: "C.UTF-8", HOME: process.env.HOME, CLAUDE_PROJECT_DIR: plan.project, ...env },
  };
  let box = await grantedSandbox(base, grants, EVENT, {});
  if (box.tooLarge) { await box.close(); throw new McpRefused(box.tooLarge); }
  let code = await runIn(box, argv, plan.project);
  // Where the recording layer cannot be made (it failed before the server read anything), on a read-only project.
  if (code === 95 && box.layerFailed()) {
    await box.close();
    box = await grantedSandbox(base, grants, EVENT, {}, false);
    code = await runIn(box, argv, plan.project);
  }
  // What it made under a name git or an agent takes up is removed once it ended (src/policy/planted.ts), and said.
  tell(plan, server, box, box.planted());
  await box.close();
  return code;
}

function runIn(box: GrantedSandbox, argv: string[], cwd: string): Promise<number> {
  const launcher = sandboxLauncher(box.spec);
  const line = launcher.wrap(box.argv(argv));
  return new Promise((resolve) => {
    // Claude Code's requests pass through this process, so a signal can end the server by closing its stdin (EOF, how an MCP
    // server is asked to stop), where a signal would end the recording layer's shell before it lists what the server wrote.
    const child = spawn(line.command, line.args, { cwd, env: line.env, stdio: ["pipe", "inherit", "inherit"] });
    child.stdin.on("error", () => { /* the server ended first */ });
    process.stdin.pipe(child.stdin);
    let killer: NodeJS.Timeout | undefined;
    const stop = () => {
      process.stdin.unpipe(child.stdin);
      child.stdin.end();
      killer ??= setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
    };
    const signals = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
    for (const s of signals) process.on(s, stop);
    const done = (code: number) => {
      for (const s of signals) process.off(s, stop);
      clearTimeout(killer);
      process.stdin.unpipe(child.stdin);
      process.stdin.destroy();
      launcher.afterDeath?.();
      resolve(code);
    };
    child.on("error", () => done(127));
    child.on("close", (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}

/** What the sandbox refused the server and what it planted, for the launcher to say when Claude Code ends, each with the command that allows it. */
function tell(plan: ClaudePlan, server: McpServer, box: GrantedSandbox, planted: ReturnType<GrantedSandbox["planted"]>): void {
  if (!plan.notices) return;
  const store = new ApprovalStore(plan.approvals ? { dir: plan.approvals } : {});
  const name = `the project's MCP server ${server.name}`;
  const lines = [
    ...planted.removed.length > 0 ? [`${name} made ${pathList(planted.removed)}, a name git or an agent takes up (it runs code or reads instructions from it), which no grant opens: ${planted.left.length > 0 ? `removed, but for ${pathList(planted.left)} (remove it yourself)` : "removed"} (effect_refused)`] : [],
    ...planted.tooLarge ? [`${name}: ${planted.tooLarge}`] : [],
  ];
  lines.push(...box.refusals("").map((r) => `${name} ${r.kind === "write" ? "wrote" : r.kind === "exec" ? "ran" : "reached for"} ${r.what}: refused${r.grant ? `. To allow it: ${grantCommand(projectKey(plan.project), [...projectGrants(store, plan.project), r.grant])}` : `; ${r.why}`}`));
  if (lines.length === 0) return;
  try { appendFileSync(plan.notices, lines.map((l) => `${l}\n`).join("")); } catch { /* the launcher is gone */ }
}
