/**
 * A hook's `pi.exec` gate (src/bridge/exec-gate.ts) as its supervisor builds it: the embedder's
 * records of each run, bounded and cut; where a confined hook's programs may start; and in sandbox
 * mode the command line that runs a program in a sandbox of the hook's shape, inside the launcher
 * of its current child.
 */
import { dirname } from "node:path";
import type { ResolvedSandboxOptions } from "../options/options.js";
import type { ExecGate } from "../bridge/exec-gate.js";
import { cut } from "../../worker/describe.mjs";
import { CALLBACK_WINDOW_MS, CallbackBudget, EXEC_RECORDS_PER_WINDOW } from "../gates/callback-budget.js";
import { hookEnvironment, loadedChildModes, type Placement } from "./launch.js";

/** `placement`: the supervisor's, read at each run (the launcher is the current child's); `pinned`: what the loaded module's approval pinned. */
export function hookExecGate(hookPath: string, resolvedPath: string, options: ResolvedSandboxOptions, placement: Placement, pinned: NonNullable<ExecGate["pinned"]>): ExecGate {
  const sandboxed = options.isolation === "sandbox";
  const execBudget = new CallbackBudget(EXEC_RECORDS_PER_WINDOW, CALLBACK_WINDOW_MS, (dropped) => options.onExec(hookPath, { command: "", args: [], dropped }));
  return {
    policy: options.policy,
    // What the loaded module's approval pinned: a project file its programs run must be one of them, unchanged.
    pinned,
    // Why bounded and cut: a hook chooses how often it calls pi.exec and what it names (a refusal is cheap to cause).
    record: (path, record) => { if (execBudget.take()) options.onExec(path, cutExecRecord(record)); },
    // A confined hook's programs start only where the hook may read (src/bridge/exec-gate.ts).
    ...(options.policy.permissionModel || sandboxed ? { reads: { folder: dirname(resolvedPath), fsRead: options.policy.fsRead, fsWrite: options.policy.fsWrite } } : {}),
    // Sandbox mode: pi.exec runs its program in a sandbox of the hook's shape and bounds, never in the host.
    ...(sandboxed ? {
      sandboxed,
      env: () => hookEnvironment(options),
      wrap: (command: string, args: string[], execCwd: string) => {
        const launcher = placement.launcher;
        // A launcher exists only once the sandbox started, which loaded `child`.
        const child = loadedChildModes();
        if (!launcher || !child) throw new Error("pi.exec: the hook's sandbox is not running");
        const node = placement.runtime!.path;
        const spec = child.execSandboxSpec(child.hookSandboxSpec(options, resolvedPath, node, hookEnvironment(options), placement.network), execCwd);
        // With a network, the program runs behind a bridge of its own to the hook's proxy (its sandbox has its own network namespace).
        const run = placement.network ? child.netExecArgv(node, child.execProgram(command), args) : { command: child.execProgram(command), args };
        return { ...launcher.exec(spec, run.command, run.args), ended: () => launcher.execEnded() };
      },
    } : {}),
  };
}

/** An `onExec` record as the embedder gets it: command and arguments cut to 200 characters, at most 32 arguments, the refusal to 400. */
function cutExecRecord<R extends { command: string; args: string[]; refused?: string }>(record: R): R {
  return {
    ...record,
    command: cut(record.command, 200),
    args: record.args.slice(0, 32).map((a) => cut(a, 200)),
    ...(record.refused === undefined ? {} : { refused: cut(record.refused, 400) }),
  };
}
