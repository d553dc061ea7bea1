/**
 * A hook's text bound for the host's log, across its restarts: its stdout and stderr (its pipes,
 * or what its runtime sent over the channel), its `pi.logger` lines and its denial reports, all
 * within one budget of lines per window, past which one summary line says how many were dropped.
 */
import type { ResolvedSandboxOptions } from "../options/options.js";
import { deniedLine } from "../../worker/access.mjs";
import { outputText } from "../gates/terminal-text.js";
import { CALLBACK_WINDOW_MS, CallbackBudget, LOG_LINES_PER_WINDOW } from "../gates/callback-budget.js";
import { OutputLines, type OutputSink } from "./output.js";

export class HookLog {
  readonly #hookPath: string;
  readonly #options: ResolvedSandboxOptions;
  /** The hook's log lines (stdout, stderr, pi.logger) per window, across restarts; past it one summary line. */
  readonly #budget: CallbackBudget;
  /**
   * What the current worker sent over the channel as its stdout and stderr (worker/stdio-bound.mjs),
   * cut into lines as its pipes are (./output.ts): one pair per worker, so a line one left open
   * never continues in the next.
   */
  #sent: Record<"stdout" | "stderr", OutputLines> | undefined;

  constructor(hookPath: string, options: ResolvedSandboxOptions) {
    this.#hookPath = hookPath;
    this.#options = options;
    this.#budget = new CallbackBudget(LOG_LINES_PER_WINDOW, CALLBACK_WINDOW_MS, (dropped) =>
      options.onLog(hookPath, "warn", `[hookbox: ${dropped} log lines dropped (over ${LOG_LINES_PER_WINDOW} per ${CALLBACK_WINDOW_MS / 1000} s)]`));
  }

  /** Hook text bound for wherever the host prints it: as policy.terminal passes it (src/gates/terminal-text.ts). */
  readonly sink: OutputSink = (stream, line, unterminated) => {
    const options = this.#options;
    if (this.#budget.take()) options.onLog(this.#hookPath, stream, outputText(line, options.policy.terminal === "raw", options.terminalText), ...(unterminated ? [true] as const : []));
  };

  /** One more line within the budget (false: over it, dropped). */
  take(): boolean {
    return this.#budget.take();
  }

  /** The lines a new worker sends over the channel, from here on those `sent` writes to. */
  nextWorker(): Record<"stdout" | "stderr", OutputLines> {
    return this.#sent = { stdout: new OutputLines("stdout", this.sink), stderr: new OutputLines("stderr", this.sink) };
  }

  /** Text the current worker sent as its stdout or stderr. */
  sent(stream: "stdout" | "stderr", text: string): void {
    this.#sent?.[stream].write(text);
  }

  /**
   * The worker reports each denial once; the embedder's onDenied gets it, else a line in the hook's log.
   * Why within the log budget: a hook can post reports itself, as many as it likes.
   */
  denied(permission: string, resource: string): void {
    if (!this.#budget.take()) return;
    const options = this.#options;
    if (options.onDenied) options.onDenied(this.#hookPath, { permission, resource });
    else options.onLog(this.#hookPath, "warn", deniedLine(permission, resource));
  }
}
