/**
 * `pi.exec` through the host: the policy decides what may run (program and arguments), the host
 * finds the program on its own PATH (never a path the hook chose), checks the working directory
 * against what the hook may read, and runs it with the hook's cleaned environment, bounded in
 * time and output, every run recorded.
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { Errors } from "../contract/errors.js";
import { below } from "../gates/inside.js";
import { execRefusal, hookEnv, type Policy } from "../policy/policy.js";
import { describeIssues } from "../contract/schemas.js";
import { execArgs } from "./methods.js";
import type { ApprovedPins } from "../contract/approved.js";
import { hostEnvValue } from "../../worker/child-env.mjs";
import { DEFAULTS } from "../../worker/wire.mjs";

/**
 * What runs a program, loaded at a module's first pi.exec that may run (an agent's start runs none),
 * once however many calls arrive together (why once: src/isolation/launch.ts, `childModes`).
 */
let execLoad: Promise<typeof import("./exec.js")> | undefined;
const execModule = () => (execLoad ??= import("./exec.js"));

/** What the bridge enforces for `pi.exec`, from the hook's policy. */
export interface ExecGate {
  policy: Policy;
  record: (hookPath: string, record: { command: string; args: string[]; refused?: string; code?: number; killed?: boolean }) => void;
  /**
   * What the hook may read (its folder, `policy.fsRead`, `policy.fsWrite`) when it is confined (the
   * permission model or the sandbox): a working directory must lie inside, after `realpath`.
   * Absent: the hook may read everything (`trusted`), so may its programs.
   */
  reads?: { folder: string; fsRead: readonly string[]; fsWrite: readonly string[] };
  /** Sandbox mode: even the runner's own cwd (the default) must pass, since the program sees only what it is bound. */
  sandboxed?: boolean;
  /** Sandbox mode: the command line that runs the program inside the hook's sandbox (src/isolation/bubblewrap/bwrap.ts), then a call when it ended. */
  wrap?: (command: string, args: string[], cwd: string) => { command: string; args: string[]; env: Record<string, string>; ended?: () => void };
  /** Sandbox mode: the environment its programs get (the hook's, `options.env` when given). */
  env?: () => Record<string, string>;
  /** An approved project module: what its approval pinned, which a project file it runs must be, unchanged (./exec-pins.ts). */
  pinned?: () => ApprovedPins | undefined;
}

/** Works from the factory on (before a runner exists), as in the original. */
export async function mediatedExec(hookPath: string, gate: ExecGate, cwd: string, a: unknown[]): Promise<unknown> {
  const parsed = execArgs.safeParse(a);
  if (!parsed.success) throw Errors.protocolViolation(hookPath, `bad arguments to exec: ${describeIssues(parsed.error)}`);
  const [command, args, options] = parsed.data;
  const place = execCwd(gate, cwd, options.cwd);
  const pins = gate.pinned?.();
  // Loaded only for an approved project module's pi.exec: a host without one never reads it.
  const refused = execRefusal(gate.policy, command, args) ?? ("refused" in place ? place.refused
    : pins ? (await import("./exec-pins.js")).execPinRefusal(pins, place.cwd, command, args, gate.env?.() ?? hookEnv(gate.policy)) : undefined);
  gate.record(hookPath, refused ? { command, args, refused } : { command, args });
  if (refused || "refused" in place) throw new Error(refused);
  const program = isAbsolute(command) || gate.policy.exec.allow === "*" ? command : onHostPath(command);
  if (!program) {
    const result = { stdout: "", stderr: `${command}: not found on the host's PATH`, code: 1, killed: false };
    gate.record(hookPath, { command, args, code: result.code, killed: false });
    return result;
  }
  const { execCommand } = await execModule();
  const { timeoutMs = DEFAULTS.execTimeoutMs, maxOutputBytes = DEFAULTS.execOutputBytes } = gate.policy.exec;
  const timeout = Math.min(options.timeout && options.timeout > 0 ? options.timeout : Infinity, timeoutMs);
  const run: { command: string; args: string[]; env?: Record<string, string>; ended?: () => void } = gate.wrap ? gate.wrap(program, args, place.cwd) : { command: program, args };
  // Why "/" for a sandboxed program's launcher: it needs no folder of the host's; bwrap changes into `place.cwd` inside (--chdir).
  // A sandboxed program gets the hook's environment through bwrap; its launcher gets its own (worker/child-env.mjs).
  const result = await execCommand(run.command, run.args, gate.wrap ? "/" : place.cwd, { timeout }, run.env ?? hookEnv(gate.policy));
  run.ended?.();
  gate.record(hookPath, { command, args, code: result.code, killed: result.killed });
  return { ...result, stdout: cut(result.stdout, maxOutputBytes), stderr: cut(result.stderr, maxOutputBytes) };
}

/**
 * The working directory of one `pi.exec`, or why it is refused. The hook's choice (`asked`,
 * relative to the runner's cwd) must lie, after `realpath`, inside what the hook may read; so
 * must the runner's cwd (the default) in sandbox mode, where nothing else is bound. The answer is the path as
 * the program will see it: inside a sandbox a grant is bound at its own name, so a directory
 * reached through a symlinked grant keeps that name.
 */
export function execCwd(gate: Pick<ExecGate, "reads" | "sandboxed">, runnerCwd: string, asked?: string): { cwd: string } | { refused: string } {
  const target = resolve(runnerCwd, asked ?? ".");
  // Why by value: the hook's runtime sends the runner's cwd when the hook names none, so that one is the host's choice.
  if (!gate.reads || (target === resolve(runnerCwd) && !gate.sandboxed)) return { cwd: target };
  let real: string;
  try {
    real = realpathSync(target);
    if (!statSync(real).isDirectory()) throw new Error("not a directory");
  } catch {
    return { refused: `pi.exec's working directory ${JSON.stringify(target)} does not exist or is not a directory` };
  }
  const { folder, fsRead, fsWrite } = gate.reads;
  for (const grant of [folder, ...fsRead, ...fsWrite]) {
    let granted: string;
    try { granted = realpathSync(resolve(grant)); } catch { continue; }
    // Where the program sees it: the grant is bound at its own name.
    const rest = below(granted, real);
    if (rest !== undefined) return { cwd: join(resolve(grant), rest) };
  }
  return { refused: `pi.exec's working directory ${JSON.stringify(real)} is outside what this hook may read (its folder ${folder}, policy.fsRead, policy.fsWrite); grant it in policy.fsRead to run programs there` };
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
