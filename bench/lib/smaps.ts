/**
 * Memory as the kernel accounts it, from `/proc/<pid>/smaps_rollup`: RSS counts every resident page
 * a process maps, so the Node binary's and the shared libraries' pages count once per process;
 * PSS divides each shared page among the processes that map it; private memory (Private_Clean +
 * Private_Dirty) is what the process alone holds, what ending it would give back. Each figure is
 * read for this process (worker threads live in it) and for all its descendants (process and
 * sandbox modes: node, and bwrap's monitor and init).
 */
import { readFileSync } from "node:fs";

/** KiB, as smaps_rollup gives them. */
export interface MemoryKb { rss: number; pss: number; priv: number }

const ZERO: MemoryKb = { rss: 0, pss: 0, priv: 0 };

export const addKb = (a: MemoryKb, b: MemoryKb): MemoryKb => ({ rss: a.rss + b.rss, pss: a.pss + b.pss, priv: a.priv + b.priv });
export const subKb = (a: MemoryKb, b: MemoryKb): MemoryKb => ({ rss: a.rss - b.rss, pss: a.pss - b.pss, priv: a.priv - b.priv });
/** KiB to MB per unit, for `count` units. */
export const perUnitMb = (m: MemoryKb, count: number) => ({ rss: m.rss / count / 1024, pss: m.pss / count / 1024, priv: m.priv / count / 1024 });

/** One process's RSS, PSS and private memory; zero when it is gone (or smaps_rollup cannot be read). */
export function smapsRollupKb(pid: number | "self" = "self"): MemoryKb {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  } catch {
    return ZERO;
  }
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  return { rss: field("Rss"), pss: field("Pss"), priv: field("Private_Clean") + field("Private_Dirty") };
}

/** Every descendant of `pid` (from /proc's children lists, recursively). */
export function descendants(pid = process.pid): number[] {
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** The sum over every descendant of this process. */
export function descendantsKb(pid = process.pid): MemoryKb {
  return descendants(pid).reduce((sum, child) => addKb(sum, smapsRollupKb(child)), ZERO);
}

/** "private 9.1 MB, PSS 12.0 MB, RSS 30.2 MB" */
export const describeMb = (m: { rss: number; pss: number; priv: number }) =>
  `private ${m.priv.toFixed(1)} MB, PSS ${m.pss.toFixed(1)} MB, RSS ${m.rss.toFixed(1)} MB`;
