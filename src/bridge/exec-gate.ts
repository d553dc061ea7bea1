/**
 * `pi.exec` through the host: the policy decides what may run (program and arguments), the host
 * finds the program on its own PATH (never a path the hook chose), and runs it with the hook's
 * cleaned environment, bounded in time and output, every run recorded.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { Errors } from "../errors.js";
import { execCommand } from "../exec.js";
import { execRefusal, hookEnv, type Policy } from "../policy.js";
import { describeIssues } from "../schemas.js";
import { execArgs } from "./methods.js";
import { hostEnvValue } from "../../worker/child-env.mjs";

/** What the bridge enforces for `pi.exec`, from the hook's policy. */
export interface ExecGate {
  policy: Policy;
  record: (hookPath: string, record: { command: string; args: string[]; refused?: string; code?: number; killed?: boolean }) => void;
  /** Sandbox mode: the command line that runs the program inside the hook's sandbox (src/sandbox/bwrap.ts), and the launcher's environment. */
  wrap?: (command: string, args: string[], cwd: string) => { command: string; args: string[]; env?: Record<string, string> };
}

/** Works from the factory on (before a runner exists), as in the original. */
export async function mediatedExec(hookPath: string, gate: ExecGate, cwd: string, a: unknown[]): Promise<unknown> {
  const parsed = execArgs.safeParse(a);
  if (!parsed.success) throw Errors.protocolViolation(hookPath, `bad arguments to exec: ${describeIssues(parsed.error)}`);
  const [command, args, options] = parsed.data;
  const refused = execRefusal(gate.policy, command, args);
  gate.record(hookPath, refused ? { command, args, refused } : { command, args });
  if (refused) throw new Error(refused);
  const program = isAbsolute(command) || gate.policy.exec.allow === "*" ? command : onHostPath(command);
  if (!program) {
    const result = { stdout: "", stderr: `${command}: not found on the host's PATH`, code: 1, killed: false };
    gate.record(hookPath, { command, args, code: result.code, killed: false });
    return result;
  }
  const { timeoutMs = 30_000, maxOutputBytes = 1024 * 1024 } = gate.policy.exec;
  const timeout = Math.min(options.timeout && options.timeout > 0 ? options.timeout : Infinity, timeoutMs);
  const run: { command: string; args: string[]; env?: Record<string, string> } = gate.wrap ? gate.wrap(program, args, options.cwd ?? cwd) : { command: program, args };
  // A sandboxed program gets the hook's environment through bwrap; its launcher gets its own.
  const result = await execCommand(run.command, run.args, options.cwd ?? cwd, { timeout }, run.env ?? hookEnv(gate.policy));
  gate.record(hookPath, { command, args, code: result.code, killed: result.killed });
  return { ...result, stdout: cut(result.stdout, maxOutputBytes), stderr: cut(result.stderr, maxOutputBytes) };
}

/**
 * Why the host's PATH, read now, and only its absolute entries: the hook's environment and working
 * folder are its own to shape, so a relative entry (`.`, `bin`) would let it plant the program.
 */
export function onHostPath(name: string, path = hostEnvValue("PATH") ?? ""): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function cut(text: string, maxBytes: number): string {
  return Buffer.byteLength(text) <= maxBytes ? text : `${Buffer.from(text).subarray(0, maxBytes).toString()}\n[output cut at ${maxBytes} bytes]`;
}
