/**
 * The audit log: one whole JSON line per record, appended (O_APPEND, one write a line), read back
 * with the record's schema; rotated past its size into a bounded number of files; a process killed
 * with SIGKILL loses no record it wrote (a hook that floods it: observe-flood.test.ts). Real files,
 * real processes, real hooks.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AuditLog, auditDir } from "../src/observe/audit-log.js";
import { readAuditLog } from "../src/observe/read-log.js";
import type { DecisionRecord } from "../src/observe/record.js";
import { ROOT } from "./helpers/host.js";

const dirs: string[] = [];
const freshDir = () => { const d = mkdtempSync(join(tmpdir(), "hookbox-audit-")); dirs.push(d); return d; };
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

const record = (i: number): DecisionRecord => ({ v: 1, time: new Date(0).toISOString(), agent: "library", event: "tool_call", tool: { name: "bash", callId: `c${i}` }, outcome: "blocked", blocked: true, hook: { path: "/h.ts" } });

describe("the audit log", () => {
  it("lives in $XDG_STATE_HOME/hookbox, else ~/.local/state/hookbox (a relative XDG_STATE_HOME is ignored)", () => {
    expect(auditDir({ XDG_STATE_HOME: "/s", HOME: "/h" })).toBe("/s/hookbox");
    expect(auditDir({ XDG_STATE_HOME: "rel", HOME: "/h" })).toBe("/h/.local/state/hookbox");
    expect(auditDir({ HOME: "/h" })).toBe("/h/.local/state/hookbox");
  });

  it("appends one JSON line per record, which reads back as the same records, in order, in a file only the user can read", () => {
    const dir = freshDir();
    const log = new AuditLog({ dir });
    for (let i = 0; i < 5; i++) log.append(record(i));
    log.close();
    expect(readAuditLog(dir)).toEqual({ records: [0, 1, 2, 3, 4].map(record), invalid: 0 });
    expect(statSync(join(dir, "decisions.jsonl")).mode & 0o777).toBe(0o600);
  });

  it("rotates past its size and keeps only its number of files, the newest records", () => {
    const dir = freshDir();
    const log = new AuditLog({ dir, maxBytes: 2_000, files: 3, burst: 10_000 });
    for (let i = 0; i < 200; i++) log.append(record(i));
    log.close();
    const files = readdirSync(dir).sort();
    expect(files).toEqual(["decisions.1.jsonl", "decisions.2.jsonl", "decisions.jsonl"]);
    for (const f of files) expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(2_000);
    const { records, invalid } = readAuditLog(dir, 3);
    expect(invalid).toBe(0);
    expect(records.at(-1)).toEqual(record(199));
    expect(records.map((r) => Number(r.tool!.callId!.slice(1)))).toEqual(Array.from({ length: records.length }, (_, i) => 200 - records.length + i));
  });

  it("keeps every record a process wrote before it was killed with SIGKILL", async () => {
    const dir = freshDir();
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "test/support/audit-then-hang.mts"), dir, "7"], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => { if (d.toString().includes("written")) resolve(); });
      child.on("exit", (code) => reject(new Error(`the child exited (${code}) before writing`)));
    });
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("exit", resolve));
    expect(child.signalCode).toBe("SIGKILL");
    const { records, invalid } = readAuditLog(dir);
    expect(invalid).toBe(0);
    expect(records.map((r) => [r.tool?.callId, r.outcome])).toEqual(Array.from({ length: 7 }, (_, i) => [`kill-${i}`, "blocked"]));
  });
});
