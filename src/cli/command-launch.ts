/**
 * What `hookbox codex` and `hookbox gemini` do alike around what differs (where each agent reads
 * its hooks and how it is shown only the routing hook): find the agent's program at a version its
 * row was read from, say what the records cannot do, name the hooks that are not run and the
 * project's hooks waiting for approval, write the pinned plan, and run the agent in its namespace.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { approvalCommand } from "../approval/store.js";
import type { AgentPlan, CommandDialect } from "../agents/dialect.js";
import { pendingApprovals } from "../agents/router.js";
import { unknownVersion } from "../agents/version.js";
import { planText } from "../agents/plan.js";
import { routingCommand, thisHookbox, type Hookbox } from "../agents/routing-hook.js";
import { launchProblems } from "../observe/launch.js";
import { findOnPath } from "../policy/runtime.js";
import { EXIT, UsageError } from "./usage-error.js";

/** The agent's program on PATH, refused by name when missing or of a version whose hook contract the row was not read from. */
export function agentProgram(d: Pick<CommandDialect<never>, "agent" | "program" | "packageName" | "versions">, say: (line: string) => void): string {
  const program = findOnPath(d.program);
  if (!program) throw new UsageError(`no \`${d.program}\` on PATH: install ${d.agent} (npm install -g ${d.packageName})`);
  const unknown = unknownVersion(d, program);
  if (unknown) throw new UsageError(unknown);
  // The router's stderr is what the agent reads as the hooks' answer: a log it cannot write is said here.
  for (const problem of launchProblems()) say(problem);
  return program;
}

/** Say which hooks are not run, and how many of the project's wait for approval. */
export async function announcePlan(d: Pick<CommandDialect<never>, "agent" | "fingerprint">, plan: AgentPlan, say: (line: string) => void): Promise<void> {
  for (const r of plan.refused) say(`${r.file}#${r.at} is not run: ${r.reason}`);
  const pending = await pendingApprovals(d, plan);
  if (pending > 0) say(`${pending} of the project's ${d.agent} hooks ${pending === 1 ? "is" : "are"} not approved as ${pending === 1 ? "it is" : "they are"}: each blocks the tool calls it guards until you review and approve them with ${approvalCommand(plan.project)}`);
}

/** Write the plan in `dir` (only the user can read it) and give the routing hook's command that follows it, by its sha256 (the agent reads the command from a read-only view, so a plan rewritten on disk is refused). */
export function pinPlan(d: Pick<CommandDialect<never>, "launcher">, plan: AgentPlan, dir: string, hookbox: Hookbox = thisHookbox()): string {
  const planFile = join(dir, "plan.json");
  const { text, sha256 } = planText(plan);
  writeFileSync(planFile, text, { mode: 0o600 });
  return routingCommand(d, hookbox, planFile, sha256);
}

/**
 * Write the plan in a folder of its own, have `views` write what the agent is shown from it (given
 * the folder and the routing command), and run the agent under bubblewrap with `bwrapArgs(views)`;
 * resolves with the agent's exit code. The folder is removed when the agent ends.
 */
export async function runBehindRouter<V>(d: Pick<CommandDialect<never>, "launcher">, plan: AgentPlan, views: (dir: string, command: string) => V, bwrapArgs: (views: V) => string[],
  program: string, args: string[], say: (line: string) => void): Promise<number> {
  const name = d.launcher;
  const dir = mkdtempSync(join(tmpdir(), `hookbox-${name}-`));
  try {
    const shown = views(dir, pinPlan(d, plan, dir));
    const bwrap = findOnPath("bwrap")!;
    return await new Promise<number>((resolve) => {
      const child = spawn(bwrap, [...bwrapArgs(shown), "--chdir", plan.project, "--", program, ...args], { stdio: "inherit", env: process.env });
      child.on("error", (e) => { say(`${name} could not be started: ${e.message}`); resolve(EXIT.hookErrors); });
      child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
