/**
 * A record written whole or not at all: whoever reads it (another host, another thread, the next
 * start) sees the old record or the new one, never part of one. The bytes go to a temporary file in
 * the record's own folder (a rename is atomic only within one file system), created exclusively
 * (`wx`: never another writer's temporary, whatever its process or thread), with the record's mode
 * (0600 unless told: every record hookbox keeps is the user's own), then renamed over the record.
 * On any failure the temporary is removed and the error thrown, so the old record stays as it was
 * and no temporary is left behind; the caller says what a failed write means (a cache misses, the
 * approvals store reports it). Not flushed to disk: a record lost to a power cut is read as missing
 * (a cache) or corrupt (an approval: refused by name), never half-trusted.
 *
 * Why not `write-file-atomic`: it is CommonJS and registers `signal-exit`'s handlers on the process
 * that writes, which is the agent's own (pi, omp), and also flushes and chowns by default; this is
 * the part hookbox needs.
 */
import { randomBytes } from "node:crypto";
import { renameSync, unlinkSync, writeFileSync } from "node:fs";
import { rename, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export interface AtomicWriteOptions {
  /** The record's file mode; 0600 when not given. */
  mode?: number;
}

/** A name beside `file`, unique per process and call, hidden, and matched by no record pattern (it ends in `.tmp`). */
function temporaryOf(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
}

/** The exclusive create found the name taken: that temporary is another writer's, not ours to remove. */
function taken(error: unknown): boolean {
  const e = error as NodeJS.ErrnoException | undefined;
  return e?.code === "EEXIST" && e.syscall === "open";
}

/** Write `data` as the whole of `file`, atomically; throws after removing the temporary. */
export async function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const temp = temporaryOf(file);
  try {
    await writeFile(temp, data, { mode: options.mode ?? 0o600, flag: "wx" });
    await rename(temp, file);
  } catch (error) {
    if (!taken(error)) await unlink(temp).catch(() => {});
    throw error;
  }
}

/** `writeFileAtomic`, synchronously. */
export function writeFileAtomicSync(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const temp = temporaryOf(file);
  try {
    writeFileSync(temp, data, { mode: options.mode ?? 0o600, flag: "wx" });
    renameSync(temp, file);
  } catch (error) {
    if (!taken(error)) try { unlinkSync(temp); } catch { /* never created */ }
    throw error;
  }
}
