/**
 * Plain-text rendering for the CLI: aligned tables, millisecond figures, one-line JSON previews,
 * and a progress bar that redraws in place on a terminal (and does nothing elsewhere).
 */
import type { HookError } from "../contract/errors.js";
import type { HookStats } from "../runner/stats.js";
import { displayWidth } from "../runner/status-line.js";

export { gatedOutput, type Output } from "./output.js";
import type { Output } from "./output.js";

/** Rows of cells as left-aligned columns (right-aligned where `right[i]`), two spaces apart, by display width (CJK and emoji take 2). */
export function table(head: string[], rows: string[][], right: boolean[] = []): string {
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => displayWidth(r[i] ?? ""))));
  const line = (r: string[]) => r.map((cell, i) => {
    const c = cell ?? "";
    if (i === r.length - 1 && !right[i]) return c;
    const pad = " ".repeat(widths[i]! - displayWidth(c));
    return right[i] ? pad + c : c + pad;
  }).join("  ").trimEnd();
  return [line(head), ...rows.map(line)].join("\n") + "\n";
}

/** `0.42 ms`, `12.5 ms`, `340 ms`. */
export function ms(value: number): string {
  if (value < 10) return `${value.toFixed(2)} ms`;
  if (value < 100) return `${value.toFixed(1)} ms`;
  return `${Math.round(value)} ms`;
}

/** A value as one line of JSON, cut to `max` characters. */
export function preview(value: unknown, max = 100): string {
  const text = value === undefined ? "undefined" : JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `crashed 1, timeout 2`, or `-` when there are none. */
export function errorCounts(errors: HookStats["errors"]): string {
  const parts = Object.entries(errors).map(([code, n]) => `${code} ${n}`);
  return parts.length ? parts.join(", ") : "-";
}

/** One HookError as one indented line (line breaks in the message folded): `! crashed  fixtures/x.ts (tool_call): message`. */
export function errorLine(e: Pick<HookError, "code" | "hookPath" | "event" | "error">, indent = "    "): string {
  return `${indent}! ${e.code}  ${e.hookPath} (${e.event}): ${e.error.replace(/\s*\n\s*/g, " ").trim()}\n`;
}

/** One applied edit as one indented line: `    input.command: "ls" → "ls --dry-run"` (values as bounded JSON). */
export function editLine(e: { path: string; before?: unknown; after?: unknown }, indent = "    "): string {
  // Values come bounded (src/cli/events.ts); the bound here only stops escapes from growing a line.
  const value = (v: unknown, present: boolean) => (present ? preview(v, 400) : "(absent)");
  return `${indent}${e.path}: ${value(e.before, "before" in e)} → ${value(e.after, "after" in e)}\n`;
}

/** The edits of one event, then `… and N more` when some were not listed. */
export function editLines(edits: Array<{ path: string; before?: unknown; after?: unknown }>, more: number, indent = "    "): string {
  return edits.map((e) => editLine(e, indent)).join("") + (more > 0 ? `${indent}… and ${more} more\n` : "");
}

/** A refusal as one indented line: `    refused invalid_result  fixtures/x.ts (tool_call): message`. */
export function refusedLine(e: Pick<HookError, "code" | "hookPath" | "event" | "error">, indent = "    "): string {
  return errorLine(e, indent).replace(/^(\s*)! /, "$1refused ");
}

/** `errorLine`, then the hook's stack (for `handler_threw`) indented below it, first 12 frames. */
export function errorWithStack(e: Pick<HookError, "code" | "hookPath" | "event" | "error" | "stack">, indent = "    "): string {
  const frames = e.stack?.split("\n").filter((l) => /^\s*at /.test(l)).slice(0, 12) ?? [];
  return errorLine(e, indent) + frames.map((f) => `${indent}    ${f.trim()}\n`).join("");
}

/**
 * The per-hook summary table drawn from `runner.stats()`: one row per hook and event type. A
 * `skipped` column appears when an event skipped a restarting or disabled hook.
 */
export function statsTable(stats: HookStats[]): string {
  const withSkipped = stats.some((s) => s.skipped > 0);
  const rows: string[][] = [];
  for (const s of stats) {
    const events = Object.entries(s.events);
    const tail = [errorCounts(s.errors), String(s.restarts), ...(withSkipped ? [String(s.skipped)] : [])];
    const blank = tail.map(() => "");
    if (events.length === 0) rows.push([s.hookPath, s.state, "-", "0", "-", "-", ...tail]);
    events.forEach(([type, e], i) => {
      rows.push([i === 0 ? s.hookPath : "", i === 0 ? s.state : "", type, String(e.calls), ms(e.p50), ms(e.p99), ...(i === 0 ? tail : blank)]);
    });
  }
  const head = ["hook", "state", "event", "calls", "p50", "p99", "errors", "restarts", ...(withSkipped ? ["skipped"] : [])];
  return table(head, rows, [false, false, false, true, true, true, false, true, true]);
}

/**
 * A progress bar on the last line of a terminal. `line()` prints a line above it; on a
 * non-terminal `line()` just writes and the bar is never drawn.
 */
export class Progress {
  readonly #out: Output;
  readonly #total: number;
  readonly #enabled: boolean;
  #done = 0;
  #drawnAt = 0;
  #shown = false;

  constructor(out: Output, total: number, enabled: boolean) {
    this.#out = out;
    this.#total = total;
    this.#enabled = enabled && out.isTTY && total > 0;
  }

  /** Write `text` (whole lines) above the bar. */
  line(text: string): void {
    if (!this.#enabled) return this.#out.write(text);
    this.#control("\r\x1b[K");
    this.#out.write(text);
    this.#shown = false;
    this.#draw(true);
  }

  /** One more item done. */
  tick(): void {
    this.#done++;
    this.#draw(this.#done === this.#total);
  }

  /** Remove the bar. */
  clear(): void {
    if (this.#enabled && this.#shown) this.#control("\r\x1b[K");
    this.#shown = false;
  }

  #draw(force: boolean): void {
    if (!this.#enabled) return;
    const now = Date.now();
    if (!force && this.#shown && now - this.#drawnAt < 50) return;
    this.#drawnAt = now;
    const width = Math.max(10, Math.min(40, (this.#out.columns ?? 80) - 30));
    const filled = Math.round((this.#done / this.#total) * width);
    const pct = Math.floor((this.#done / this.#total) * 100);
    this.#control(`\r\x1b[K[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${this.#done}/${this.#total} ${pct}%`);
    this.#shown = true;
  }

  #control(sequence: string): void {
    if (this.#out.control) this.#out.control(sequence);
    else this.#out.write(sequence);
  }
}
