/** The benches' figures: one row per figure, an optional target, printed as one markdown table. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { spreadOf, type Summary } from "./measure.js";

export interface Row {
  key: string;
  value: number;
  unit: string;
  target?: { op: "<=" | ">=" | "=="; value: number };
  detail: string;
  /**
   * A ratio's per-round values (hookbox and its floor alternated within this run); `value` is their
   * median. Printed as the spread, so one noisy round decides nothing and a reader sees how much
   * the rounds disagreed.
   */
  rounds?: readonly number[];
}

export const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
export const ms = (v: number) => `${v.toFixed(1)} ms`;
export const s = (v: number) => `${v.toFixed(2)} s`;
export const spread = (s: Summary, fmt: (v: number) => string) => `${fmt(s.median)} (p99 ${fmt(s.p99)})`;

/** "IQR 1.20-1.33, range 1.05-1.60, 30 rounds", or "-" for a figure measured once. */
export function roundsSpread(row: Row): string {
  if (!row.rounds?.length) return "-";
  const s = spreadOf(row.rounds);
  const f = (v: number) => v.toFixed(2);
  return `IQR ${f(s.q1)}-${f(s.q3)}, range ${f(s.min)}-${f(s.max)}, ${s.n} rounds`;
}

export function passes(row: Row): boolean | undefined {
  const t = row.target;
  if (!t) return undefined;
  if (t.op === "<=") return row.value <= t.value;
  if (t.op === ">=") return row.value >= t.value;
  return row.value === t.value;
}

export function table(rows: Row[]): string {
  const cells = rows.map((r) => {
    const ok = passes(r);
    return [
      r.key,
      r.unit === "x" ? r.value.toFixed(2) : r.unit === "" ? String(r.value) : `${r.value.toFixed(r.unit === "µs" ? 3 : r.unit === "s" ? 2 : 1)} ${r.unit}`,
      r.target ? `${r.target.op} ${r.target.value}${r.unit === "x" || r.unit === "" ? "" : ` ${r.unit}`}` : "-",
      ok === undefined ? "-" : ok ? "pass" : "FAIL",
      roundsSpread(r),
      r.detail,
    ];
  });
  return markdownTable(["figure", "value", "target", "result", "spread of the alternated rounds", "measured (median, p99) / floor"], cells);
}

/** A markdown table of `head` and `cells`, each column padded to its widest cell. */
export function markdownTable(head: readonly string[], cells: ReadonlyArray<readonly string[]>): string {
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) => `| ${c.map((v, i) => v.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...cells.map(line)].join("\n");
}

/** What a bench run saves (`--save`): its rows and the machine they were measured on; docs/performance.md is generated from it. */
export interface Results { bench: string; machine: Machine; rows: Row[] }

/** The machine a bench ran on, with its load as the run ended (the machine is shared). */
export interface Machine { node: string; cpus: number; cpu: string; loadavg: number }
export const machine = (): Machine => ({ node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model.trim() ?? "unknown", loadavg: Number(loadavg()[0]!.toFixed(1)) });

/** Where `--save` writes a bench's results (scripts/generated-docs.ts reads them). */
export const resultsFile = (bench: string) => fileURLToPath(new URL(`../results/${bench}.json`, import.meta.url));

/**
 * The table, which targets were missed, and with `json` the figures as one JSON object on the last
 * line; with `save`, the rows and the machine written to bench/results/<save>.json (with `merge`, in
 * place of the rows of the same keys, the others kept).
 */
export function report(rows: Row[], json: boolean, save?: string, merge = false): void {
  console.log(table(rows));
  const failed = rows.filter((r) => passes(r) === false).map((r) => r.key);
  console.log(failed.length ? `\ntargets missed: ${failed.join(", ")}` : "\nevery target met");
  if (save) {
    const here = machine();
    const earlier = merge && existsSync(resultsFile(save)) ? (JSON.parse(readFileSync(resultsFile(save), "utf8")) as Results) : undefined;
    // Merged rows go where their keys were, new ones at the end, each saying its own run's load; the file keeps the earlier run's machine.
    const apart = rows.map((r) => ({ ...r, detail: `${r.detail} (measured apart, load average ${here.loadavg})` }));
    const before = earlier?.rows ?? [];
    const merged = earlier ? [...before.map((r) => apart.find((n) => n.key === r.key) ?? r), ...apart.filter((r) => !before.some((b) => b.key === r.key))] : rows;
    const results: Results = { bench: save, machine: earlier?.machine ?? here, rows: merged };
    mkdirSync(dirname(resultsFile(save)), { recursive: true });
    writeFileSync(resultsFile(save), `${JSON.stringify(results, null, 1)}\n`);
    console.error(`saved ${resultsFile(save)}; npm run docs:performance regenerates docs/performance.md`);
  }
  if (json) console.log(JSON.stringify(Object.fromEntries(rows.map((r) => [r.key, Number(r.value.toPrecision(4))]))));
}
