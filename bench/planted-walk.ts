/**
 * `npx tsx bench/planted-walk.ts`: what one walk of a granted folder costs (src/policy/planted.ts
 * `takenUpEntries`, run twice per hook run: before and after), for folders of 10, 100 and 10 000
 * entries, the page cache warm. Prints the median, the fastest and the 90th percentile of 30 walks
 * each (docs/internals.md quotes a run).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { takenUpEntries } from "../src/policy/planted.js";

/** A folder of `n` entries: folders of `perFolder` entries each (one folder, the rest files). */
function folderOf(n: number, perFolder: number): string {
  const root = mkdtempSync(join(tmpdir(), "hookbox-walk-bench-"));
  for (let made = 0, dir = 0; made < n; dir++) {
    const sub = join(root, `d${dir}`);
    mkdirSync(sub);
    made++;
    for (let i = 0; i < perFolder - 1 && made < n; i++, made++) writeFileSync(join(sub, `f${i}.log`), "");
  }
  return root;
}

for (const [n, perFolder] of [[10, 10], [100, 20], [10_000, 100], [10_000, 1000]] as const) {
  const root = folderOf(n, perFolder);
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    const start = process.hrtime.bigint();
    takenUpEntries(root);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(`${n} entries (${perFolder} a folder): median ${times[15]!.toFixed(3)} ms, fastest ${times[0]!.toFixed(3)} ms, p90 ${times[27]!.toFixed(3)} ms`);
  rmSync(root, { recursive: true, force: true });
}
