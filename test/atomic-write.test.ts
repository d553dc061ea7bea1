/**
 * The one atomic record write (src/gates/atomic-write.ts) behind the start records, the agent's
 * export maps, the transform cache and the approvals and needs stores. Failures are injected for
 * real: a file size limit (`ulimit -f`) that fails the write of the temporary after it was created
 * and partly written (EFBIG), and a record path that is a folder, which fails the rename.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { writeFileAtomic, writeFileAtomicSync } from "../src/gates/atomic-write.js";
import { tempDir } from "./helpers/files.js";
import { ROOT } from "./helpers/host.js";

const WRITER = join(ROOT, "test/support/atomic-writer.mts");
const run = promisify(execFile);

/** Run the writer in its own process, under a file size limit of `limitKb` when given. */
async function writer(variant: "sync" | "async", file: string, letter: string, size: number, count: number, limitKb?: number): Promise<{ written: number; code?: string }> {
  const node = ["node", "--import", "tsx", WRITER, variant, file, letter, String(size), String(count)].map((a) => `'${a}'`).join(" ");
  const { stdout } = await run("sh", ["-c", `${limitKb === undefined ? "" : `ulimit -f ${limitKb}; `}exec ${node}`], { cwd: ROOT, timeout: 30_000 });
  return JSON.parse(stdout) as { written: number; code?: string };
}

const temporaries = (dir: string) => readdirSync(dir).filter((n) => n.endsWith(".tmp"));

describe("an atomic record write", () => {
  it("writes the whole record, private (0600) unless given a mode, and leaves no temporary", async () => {
    const dir = tempDir("hookbox-atomic-");
    writeFileAtomicSync(join(dir, "a.json"), "{\"a\":1}\n");
    await writeFileAtomic(join(dir, "b.json"), "{\"b\":1}\n");
    await writeFileAtomic(join(dir, "c.json"), "c", { mode: 0o640 });
    expect(readFileSync(join(dir, "a.json"), "utf8")).toBe("{\"a\":1}\n");
    expect(readFileSync(join(dir, "b.json"), "utf8")).toBe("{\"b\":1}\n");
    expect(statSync(join(dir, "a.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "b.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "c.json")).mode & 0o777).toBe(0o640 & ~process.umask());
    expect(temporaries(dir)).toEqual([]);
  });

  it("a write that fails halfway (the file size limit, EFBIG) throws, removes its temporary and leaves the old record whole, sync and async", async () => {
    const dir = tempDir("hookbox-atomic-");
    for (const variant of ["sync", "async"] as const) {
      const file = join(dir, `${variant}.json`);
      writeFileSync(file, "old record");
      // A file may grow to 64 of ulimit's blocks (32-64 KB), the record is 256 KB: the temporary is created, part written, then refused.
      expect(await writer(variant, file, "n", 256 * 1024, 1, 64)).toEqual({ written: 0, code: "EFBIG" });
      expect(readFileSync(file, "utf8")).toBe("old record");
    }
    expect(temporaries(dir)).toEqual([]);
    // The control: the same writer without the limit replaces the record.
    expect(await writer("async", join(dir, "async.json"), "n", 256 * 1024, 1)).toEqual({ written: 1 });
    expect(readFileSync(join(dir, "async.json"), "utf8")).toBe("n".repeat(256 * 1024));
  });

  it("a write whose rename fails (the record's path is a folder) throws, removes its temporary and leaves the folder as it was, sync and async", async () => {
    const dir = tempDir("hookbox-atomic-");
    const record = join(dir, "record.json");
    mkdirSync(record);
    writeFileSync(join(record, "inside"), "kept");
    expect(() => writeFileAtomicSync(record, "new")).toThrow(expect.objectContaining({ syscall: "rename" }));
    await expect(writeFileAtomic(record, "new")).rejects.toMatchObject({ syscall: "rename" });
    expect(readdirSync(dir)).toEqual(["record.json"]);
    expect(readFileSync(join(record, "inside"), "utf8")).toBe("kept");
  });

  it("concurrent writers, in several processes and within one, leave one whole record and no temporary, and a reader never sees part of one", async () => {
    const dir = tempDir("hookbox-atomic-");
    const file = join(dir, "record.json");
    const SIZE = 512 * 1024;
    writeFileSync(file, "a".repeat(SIZE));
    const whole = (text: string) => text.length === SIZE && text === text[0]!.repeat(SIZE);
    let reads = 0;
    let torn = 0;
    let done = false;
    const reader = (async () => {
      while (!done) {
        if (!whole(readFileSync(file, "latin1"))) torn++;
        reads++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    // Three processes (sync, async, sync) and twenty writes at once in this one, each record a letter of its own.
    const children = [writer("sync", file, "c", SIZE, 30), writer("async", file, "e", SIZE, 30), writer("sync", file, "g", SIZE, 30)];
    const local = Array.from({ length: 20 }, (_, i) => writeFileAtomic(file, String.fromCharCode(0x6b + (i % 10)).repeat(SIZE)));
    const results = await Promise.all(children);
    await Promise.all(local);
    done = true;
    await reader;
    expect(results).toEqual([{ written: 30 }, { written: 30 }, { written: 30 }]);
    expect(reads).toBeGreaterThan(10);
    expect(torn).toBe(0);
    expect(whole(readFileSync(file, "latin1"))).toBe(true);
    expect(temporaries(dir)).toEqual([]);
  });
});
