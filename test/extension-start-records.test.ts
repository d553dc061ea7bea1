/**
 * isolate()'s start records (src/extension/starts.ts) are bounded as the transform cache is: one
 * record per module, and every project or option set makes a new one, so without a bound
 * the folder grows for ever. Written past `START_RECORD_BYTES`, the least recently used records
 * go first; a record read at a start counts as used, so the set a user starts every day stays.
 * Real files in a real cache folder.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { START_RECORD_BYTES, readStart, startRecordFiles, writeStarts } from "../src/extension/starts.js";
import type { Manifest } from "../src/contract/protocol.js";

const dir = mkdtempSync(join(tmpdir(), "hookbox-start-records-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A manifest of about 24 KB (eight commands with long descriptions): 30 records are past the bound. */
const big = (i: number): Manifest => ({
  events: { tool_call: 1 },
  commands: Array.from({ length: 8 }, (_, c) => ({ name: `c${i}-${c}`, description: "d".repeat(3_000) })),
  renderers: [],
});

describe("isolate()'s start records", () => {
  it("are bounded in total size, the least recently used removed first, a record read at a start kept", async () => {
    const cacheDir = join(dir, "cache");
    const records: string[] = [];
    for (let i = 0; i < 30; i++) {
      const module = join(dir, `module-${i}.mjs`);
      writeFileSync(module, `export default function (pi) { pi.on("tool_call", () => undefined); } // ${i}\n`);
      const file = (await startRecordFiles([module], dir, "pi", { transformCacheDir: cacheDir }))?.[0];
      expect(file).toBeDefined();
      records.push(file!);
    }
    const old = Date.now() / 1000 - 3_600;
    // The first 15 written an hour ago, a second apart (within the bound: none removed yet).
    for (let i = 0; i < 15; i++) {
      await writeStarts([records[i]!], [big(i)]);
      utimesSync(records[i]!, old + i, old + i);
    }
    expect(readdirSync(dirname(records[0]!)).length).toBe(15);
    // The agent starts with set 0 again: its record is read, so it counts as used now.
    expect(await readStart(records[0]!)).toEqual(big(0));
    for (let i = 15; i < 30; i++) await writeStarts([records[i]!], [big(i)]);

    const left = readdirSync(dirname(records[0]!));
    const total = left.reduce((sum, name) => sum + statSync(join(dirname(records[0]!), name)).size, 0);
    expect(total).toBeLessThanOrEqual(START_RECORD_BYTES);
    expect(left).toContain(basename(records[0]!));
    for (let i = 15; i < 30; i++) expect(left).toContain(basename(records[i]!));
    // The oldest unread records went first (set 1 was the least recently used).
    expect(left).not.toContain(basename(records[1]!));
    expect(await readStart(records[1]!)).toBeUndefined();
    expect(await readStart(records[0]!)).toEqual(big(0));
  });
});
