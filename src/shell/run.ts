/**
 * Run one shell hook: spawn the file in its own process group, write the event to stdin, collect
 * stdout and stderr up to a bound, and kill the whole group at the deadline.
 */
import { spawn } from "node:child_process";
import { Errors, HookFailure } from "../contract/errors.js";
import { childEnv } from "../../worker/child-env.mjs";

/** How a run ended. Only `exited` carries output; every other kind is a fault. */
export type ShellOutcome =
  | { kind: "exited"; code: number; stdout: string; stderr: string }
  | { kind: "signaled"; signal: string; stderr: string }
  | { kind: "timeout"; ms: number; stderr: string }
  | { kind: "too_large"; stream: "stdout" | "stderr"; bytes: number; limit: number }
  | { kind: "spawn_failed"; message: string };

export interface RunShellOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  /** Wall-clock deadline in ms; `Infinity` for none. */
  timeoutMs: number;
  /** Largest stdout, and largest stderr, in bytes. */
  maxOutputBytes: number;
  /** Arguments of `file` (a Claude Code hook runs as `bash -c <command>`, or through the sandbox launcher). */
  args?: string[];
  /** Stops the run (its process group killed) as at its deadline: a router answering before its own. */
  signal?: AbortSignal;
}

/** The end of a hook's output (where its reason is), at most `max` characters, marked when cut. */
export const tail = (s: string, max = 2_000): string => (s.length > max ? `…${s.slice(-max)}` : s).trim();

/**
 * Why an agent's command hook (`name`, on `event`) gave no answer the agent reads: it did not exit
 * (past its `timeout`, output over its bound, a signal, a spawn that failed) or exited with a status
 * that is not one of `answers` (0, and those the agent reads as a block). Undefined when it answered.
 */
export function unanswered(name: string, event: string, outcome: ShellOutcome, answers: ReadonlySet<number>): HookFailure | undefined {
  switch (outcome.kind) {
    case "timeout": return new HookFailure("timeout", name, event, `${name} did not exit within its timeout (${outcome.ms / 1000} s) on ${event}; its process group was killed.`);
    case "too_large": return new HookFailure("result_too_large", name, event, `${name} wrote more than ${outcome.limit} bytes to ${outcome.stream} on ${event}; it was killed.`);
    case "signaled": return Errors.crashed(name, event, `killed by ${outcome.signal}`);
    case "spawn_failed": return Errors.crashed(name, event, `could not be started (${outcome.message})`);
  }
  if (answers.has(outcome.code)) return undefined;
  return Errors.crashed(name, event, `exited with code ${outcome.code}${outcome.stderr.trim() ? `; stderr: ${tail(outcome.stderr, 500)}` : ""}`);
}

const GROUPS = process.platform !== "win32";

/** Run `file` with `input` on stdin. Never rejects; never leaves the process (or its children) running past the deadline. */
export function runShellHook(file: string, input: string, options: RunShellOptions): Promise<ShellOutcome> {
  return new Promise((resolve) => {
    let child;
    try {
      // detached: the script leads its own process group, so a kill reaches `sleep` and the like too.
      child = spawn(file, options.args ?? [], { cwd: options.cwd, env: childEnv(options.env), stdio: ["pipe", "pipe", "pipe"], detached: GROUPS });
    } catch (err) {
      resolve({ kind: "spawn_failed", message: (err as Error).message });
      return;
    }
    let settled = false;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const sizes = { stdout: 0, stderr: 0 };
    const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString("utf8");
    const killGroup = () => {
      try {
        if (GROUPS && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch { /* already gone */ }
    };
    const settle = (outcome: ShellOutcome, kill: boolean) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (kill) {
        killGroup();
        child.stdout.destroy();
        child.stderr.destroy();
      }
      resolve(outcome);
    };
    const timer = Number.isFinite(options.timeoutMs)
      ? setTimeout(() => settle({ kind: "timeout", ms: options.timeoutMs, stderr: text(err) }, true), options.timeoutMs)
      : undefined;
    const collect = (stream: "stdout" | "stderr", chunks: Buffer[]) => (chunk: Buffer) => {
      sizes[stream] += chunk.length;
      if (sizes[stream] > options.maxOutputBytes) {
        settle({ kind: "too_large", stream, bytes: sizes[stream], limit: options.maxOutputBytes }, true);
        return;
      }
      chunks.push(chunk);
    };
    const stop = () => settle({ kind: "timeout", ms: options.timeoutMs, stderr: text(err) }, true);
    if (options.signal?.aborted) stop();
    options.signal?.addEventListener("abort", stop, { once: true });
    child.on("close", () => options.signal?.removeEventListener("abort", stop));
    child.stdout.on("data", collect("stdout", out));
    child.stderr.on("data", collect("stderr", err));
    child.on("error", (e) => settle({ kind: "spawn_failed", message: e.message }, true));
    child.on("close", (code, signal) => {
      if (signal) settle({ kind: "signaled", signal, stderr: text(err) }, false);
      else settle({ kind: "exited", code: code ?? 0, stdout: text(out), stderr: text(err) }, false);
    });
    // A script that never reads stdin closes it early: EPIPE is not a fault of the run.
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}
