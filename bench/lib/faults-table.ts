/** `npm run faults`' figures: one row per fault, printed as one markdown table, then the soak. */
import { markdownTable, type Machine } from "./table.js";

export interface FaultRow {
  fault: string;
  /** The codes reported, first seen first, and what the hook got where the fault is a refusal. */
  code: string;
  /** Milliseconds from the fault's event to the first report; null when nothing was reported. */
  detectedMs: number | null;
  hostLagMs: number;
  otherHookOk: boolean;
  disposeMs: number;
}

export interface Soak { events: number; faultsInjected: number; settled: number; lost: number; inOrder: boolean; worstSettleMs: number; deadlineMs: number }

/** What `npm run faults -- --save` writes to bench/results/faults-<isolation>.json. */
export interface FaultResults { bench: string; isolation: string; machine: Machine; rows: FaultRow[]; soak: Soak }

const msCell = (v: number | null) => (v === null ? "-" : `${v.toFixed(0)} ms`);

export function faultsTable(rows: readonly FaultRow[]): string {
  return markdownTable(["fault", "code reported", "detected after", "host's worst event-loop lag", "other hook answered after", "dispose took"],
    rows.map((r) => [r.fault, `\`${r.code}\``, msCell(r.detectedMs), msCell(r.hostLagMs), r.otherHookOk ? "yes" : "no", msCell(r.disposeMs)]));
}

export function soakLine(s: Soak): string {
  return `soak: ${s.events} events, ${s.faultsInjected} faults injected, ${s.settled} settled, lost = ${s.lost}, in order: ${s.inOrder ? "yes" : "no"}, slowest emit ${s.worstSettleMs} ms (tool_call deadline ${s.deadlineMs} ms)`;
}
