/**
 * `execCommand` with the original's contract: argv run directly (no shell), never rejects on a
 * non-zero exit, `killed` on abort and on timeout, `code` 0 when the process had no exit code.
 */
import { spawn } from "node:child_process";
import type { ExecOptions, ExecResult } from "../contract/types.js";
import { childEnv } from "../../worker/child-env.mjs";

/** Grace period between SIGTERM and SIGKILL, as the original's `killProcess`. */
const KILL_GRACE_MS = 5_000;

/** `env` replaces the child's environment (hookbox passes a hook's cleaned one); default: the host's own entries. Either way through the environment gate. */
export function execCommand(command: string, args: string[], cwd: string, options: ExecOptions = {}, env?: NodeJS.ProcessEnv): Promise<ExecResult> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let killed = false;
    let child;
    try {
      child = spawn(command, args, { cwd: options.cwd ?? cwd, stdio: ["ignore", "pipe", "pipe"], env: childEnv(env ?? process.env) });
    } catch (err) {
      resolve({ stdout, stderr: (err as Error).message, code: 1, killed });
      return;
    }
    let graceTimer: NodeJS.Timeout | undefined;
    const kill = () => {
      if (killed || child.exitCode !== null) return;
      killed = true;
      child.kill();
      graceTimer = setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS);
      graceTimer.unref();
    };
    const timer = options.timeout && options.timeout > 0 ? setTimeout(kill, options.timeout) : undefined;
    if (options.signal?.aborted) kill();
    options.signal?.addEventListener("abort", kill, { once: true });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => { stderr += chunk; });
    let failedToStart = false;
    child.on("error", (err) => {
      if (child.pid === undefined) failedToStart = true;
      stderr += (stderr ? "\n" : "") + err.message;
    });
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      options.signal?.removeEventListener("abort", kill);
      // A spawn failure (ENOENT) closes with a negative errno, not an exit code: report 1 as the
      // original did when the streams failed.
      resolve({ stdout, stderr, code: failedToStart ? 1 : (code ?? 0), killed });
    });
  });
}
