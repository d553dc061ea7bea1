/**
 * The audit log: decision records as JSON lines in the user's state folder
 * (`$XDG_STATE_HOME/hookbox`, else `~/.local/state/hookbox`), appended by the launchers and
 * `isolate()`. Each record is one `write` of one whole line to a file opened with O_APPEND, so
 * records of processes writing at once never interleave, and a process killed at any point loses no
 * record it wrote before. Bounded: a file is rotated past `maxBytes` and `files` are kept (the disk
 * used is at most `files` x `maxBytes`), and records over `rate` a second (after a `burst`) are
 * dropped and counted in one `dropped` record, so a hook that fails on every event cannot flood it.
 */
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { DecisionRecord } from "./record.js";

export const AUDIT_FILE = "decisions.jsonl";

/** The log's bounds when not given: a file of 4 MiB, 4 files kept, 50 records a second after a burst of 500. */
export const AUDIT_DEFAULTS = Object.freeze({ maxBytes: 4 * 1024 * 1024, files: 4, rate: 50, burst: 500 });

export interface AuditLogOptions {
  /** The folder (default `auditDir()`). */
  dir?: string;
  /** A file is rotated when the next line would take it past this size (`AUDIT_DEFAULTS`, as the rest). */
  maxBytes?: number;
  /** How many files are kept, the current one included. */
  files?: number;
  /** Records a second kept over time, and how many may come at once. */
  rate?: number;
  burst?: number;
  /** Where a write failure is said, once (default: stderr). */
  onError?: (message: string) => void;
}

/** `$XDG_STATE_HOME/hookbox` (an absolute value), else `~/.local/state/hookbox`. */
export function auditDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec: a relative value is invalid and ignored.
  if (xdg && xdg.startsWith("/")) return join(xdg, "hookbox");
  return join(env.HOME || homedir(), ".local", "state", "hookbox");
}

/** The files of the log in `dir`, oldest first (`decisions.<n>.jsonl` … `decisions.jsonl`). */
export function auditFiles(dir: string, files: number = AUDIT_DEFAULTS.files): string[] {
  return [...Array.from({ length: files - 1 }, (_, i) => join(dir, rotated(files - 1 - i))), join(dir, AUDIT_FILE)];
}
const rotated = (n: number) => AUDIT_FILE.replace(/\.jsonl$/, `.${n}.jsonl`);

export class AuditLog {
  readonly dir: string;
  readonly file: string;
  readonly #maxBytes: number;
  readonly #files: number;
  readonly #rate: number;
  readonly #burst: number;
  readonly #onError: (message: string) => void;
  #fd: number | undefined;
  /** The file's size at the last look, plus what this log wrote since (other processes' lines are seen at the next look). */
  #size = 0;
  #tokens: number;
  #refilled = performance.now();
  #dropped = 0;
  #failed = false;

  constructor(options: AuditLogOptions = {}) {
    this.dir = options.dir ?? auditDir();
    this.file = join(this.dir, AUDIT_FILE);
    this.#maxBytes = options.maxBytes ?? AUDIT_DEFAULTS.maxBytes;
    this.#files = Math.max(1, options.files ?? AUDIT_DEFAULTS.files);
    this.#rate = options.rate ?? AUDIT_DEFAULTS.rate;
    this.#burst = options.burst ?? AUDIT_DEFAULTS.burst;
    this.#tokens = this.#burst;
    this.#onError = options.onError ?? ((m) => process.stderr.write(`${m}\n`));
  }

  /** Append `record` (or count it as dropped, over the rate). Never throws: a log that cannot be written is said once. */
  append(record: DecisionRecord): void {
    if (this.#failed) return;
    const now = performance.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#refilled) / 1000) * this.#rate);
    this.#refilled = now;
    if (this.#tokens < 1) {
      this.#dropped++;
      return;
    }
    this.#tokens--;
    try {
      if (this.#dropped > 0) {
        this.#write(JSON.stringify({ v: 1, time: new Date().toISOString(), agent: record.agent, event: "audit", outcome: "dropped", blocked: false, dropped: this.#dropped, why: `the audit log dropped ${this.#dropped} records over its rate of ${this.#rate} a second` } satisfies DecisionRecord));
        this.#dropped = 0;
      }
      this.#write(JSON.stringify(record));
    } catch (err) {
      this.#failed = true;
      this.close();
      this.#onError(`hookbox: the audit log ${this.file} cannot be written (${(err as Error).message}); decisions are not recorded there from now on`);
    }
  }

  /** Close the file (a later append opens it again). */
  close(): void {
    if (this.#fd === undefined) return;
    try { closeSync(this.#fd); } catch { /* closed already */ }
    this.#fd = undefined;
  }

  #write(json: string): void {
    const line = Buffer.from(`${json}\n`);
    let fd = this.#open();
    // The file is looked at again only when this log's count says it is full (one fstat, not one per record).
    if (this.#size + line.length > this.#maxBytes && (this.#size = fstatSync(fd).size) + line.length > this.#maxBytes) fd = this.#rotate(fd);
    // One write of the whole line (O_APPEND): never interleaved with another process's, never half a record before it.
    writeSync(fd, line);
    this.#size += line.length;
  }

  #open(): number {
    if (this.#fd !== undefined) return this.#fd;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.#fd = openSync(this.file, "a", 0o600);
    this.#size = fstatSync(this.#fd).size;
    return this.#fd;
  }

  /** The file is full: unless another process rotated it already (the path is another file now), shift the files and start a new one. */
  #rotate(fd: number): number {
    const current = statSync(this.file, { throwIfNoEntry: false });
    if (!current || current.ino === fstatSync(fd).ino) {
      rmSync(join(this.dir, rotated(this.#files - 1)), { force: true });
      for (let n = this.#files - 2; n >= 1; n--) renameIfThere(join(this.dir, rotated(n)), join(this.dir, rotated(n + 1)));
      if (this.#files > 1) renameIfThere(this.file, join(this.dir, rotated(1)));
      else rmSync(this.file, { force: true });
    }
    this.close();
    return this.#open();
  }
}

function renameIfThere(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** Whether the audit log keeps `record` by default: every record about a tool call, and every other that is not `allowed`. */
export const auditWorthy = (record: DecisionRecord): boolean => record.tool !== undefined || record.outcome !== "allowed";

/** Why the default audit log cannot be written (said by a launcher at its start), or undefined. */
export function auditProblem(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.HOOKBOX_AUDIT === "off") return undefined;
  const dir = auditDir(env);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    closeSync(openSync(join(dir, AUDIT_FILE), "a", 0o600));
    return undefined;
  } catch (err) {
    return `the audit log ${join(dir, AUDIT_FILE)} cannot be written (${(err as Error).message}): decisions are not recorded there (set XDG_STATE_HOME, or HOOKBOX_AUDIT=off)`;
  }
}

const logs = new Map<string, AuditLog>();
/**
 * The audit log the launchers and `isolate()` append to (one per process and folder), or undefined
 * when `HOOKBOX_AUDIT=off`. `HOOKBOX_AUDIT_CONTENT=1` adds content to its records.
 */
export function defaultAuditLog(env: NodeJS.ProcessEnv = process.env, onError?: (message: string) => void): { log: AuditLog; content: boolean } | undefined {
  if (env.HOOKBOX_AUDIT === "off") return undefined;
  const dir = auditDir(env);
  let log = logs.get(dir);
  if (!log) logs.set(dir, (log = new AuditLog({ dir, ...(onError ? { onError } : {}) })));
  return { log, content: env.HOOKBOX_AUDIT_CONTENT === "1" };
}
