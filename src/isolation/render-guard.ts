/**
 * What one hook's renderers may cost the host's UI. A TUI calls `render(width)` synchronously, so
 * every render blocks the host: each one is bounded by `renderTimeoutMs`, and this guard bounds the
 * rest.
 *
 * - Size: the lines of one render go to the UI as at most `LIMITS.renderLines` lines of at most
 *   `renderLineChars(width)` characters (8 per column asked, 256 to 4096); more is cut with a
 *   marker (`result_too_large`, reported once per hook).
 * - Time: the host time a hook's renders take (failed and timed-out ones included) is summed per
 *   one-second window; past `renderBudgetMs` in a window the hook is demoted to default rendering
 *   for the rest of its sandbox's life (its renderers give `undefined`, its stand-ins render no
 *   lines) and reported once (`timeout`, event `render`). Why for good: a renderer that just fits
 *   under the timeout would otherwise freeze the UI again each window.
 * - Bytes: every line passes the terminal-text gate (src/gates/terminal-text.ts).
 */
import { Errors, type HookFailure } from "../contract/errors.js";
import { terminalText, type TerminalTextOptions } from "../gates/terminal-text.js";
import { LIMITS, renderLineChars } from "../../worker/wire.mjs";

const WINDOW_MS = 1_000;

export class RenderGuard {
  readonly #hookPath: string;
  readonly #budgetMs: number;
  readonly #terminal: TerminalTextOptions;
  readonly #report: (failure: HookFailure) => void;
  #windowStart = 0;
  #spent = 0;
  #demoted = false;
  #cutReported = false;

  constructor(hookPath: string, budgetMs: number, terminal: TerminalTextOptions, report: (failure: HookFailure) => void) {
    this.#hookPath = hookPath;
    this.#budgetMs = budgetMs;
    this.#terminal = terminal;
    this.#report = report;
  }

  /** False once the hook was demoted to default rendering. */
  get allowed(): boolean {
    return !this.#demoted;
  }

  /** Charge `ms` of host time spent on one render operation. */
  charge(ms: number, now = performance.now()): void {
    if (now - this.#windowStart >= WINDOW_MS) {
      this.#windowStart = now;
      this.#spent = 0;
    }
    this.#spent += ms;
    if (this.#spent > this.#budgetMs && !this.#demoted) {
      this.#demoted = true;
      this.#report(Errors.renderBudget(this.#hookPath, Math.round(this.#spent), this.#budgetMs));
    }
  }

  /** The lines of one render as the UI gets them: bounded, cut with a marker, gated. */
  lines(raw: readonly string[], width: number): string[] {
    const { renderLines } = LIMITS;
    const maxChars = renderLineChars(width);
    let cut = raw.length > renderLines;
    const out = (cut ? raw.slice(0, renderLines - 1) : raw).map((line) => {
      if (line.length <= maxChars) return terminalText(line, this.#terminal);
      cut = true;
      const reset = this.#terminal.colors === false ? "" : "\x1b[0m";
      return `${terminalText(line.slice(0, maxChars - 1), this.#terminal)}${reset}…`;
    });
    if (raw.length > renderLines) out.push(`… (hookbox cut this render: more than ${renderLines} lines)`);
    if (cut && !this.#cutReported) {
      this.#cutReported = true;
      this.#report(Errors.renderTooLarge(this.#hookPath, renderLines, maxChars, width));
    }
    return out;
  }
}
