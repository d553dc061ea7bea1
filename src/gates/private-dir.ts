/**
 * Why these checks: hookbox's default cache folders sit in the shared temporary folder, where
 * another user could have made one first and filled it. Only a folder this user owns, closed to
 * others, is used (made with mode 0700 when missing). Such a folder is bounded in size by `boundFolder`.
 */
import { mkdirSync, statSync, utimesSync } from "node:fs";
import { readdir, stat, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The host's transform cache folder when `transformCacheDir` is not given; start records and export maps live in folders of it. */
export function defaultTransformCacheDir(): string {
  return join(tmpdir(), `hookbox-transforms-${process.getuid?.() ?? "user"}`);
}

export function privateDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const s = statSync(dir);
    const mine = typeof process.getuid !== "function" || s.uid === process.getuid();
    return s.isDirectory() && mine && (s.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/**
 * Keep a cache folder's entries (the names `entry` accepts) within `maxBytes` in total: the least
 * recently used first out, by modification time (a reader marks an entry used with `markUsed`).
 * Shared by the transform cache (src/transform/cache.ts) and isolate()'s start records
 * (src/extension/starts.ts). Resolves with the bytes left.
 */
export async function boundFolder(dir: string, entry: RegExp, maxBytes: number): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const entries = (await Promise.all(names.filter((n) => entry.test(n)).map(async (name) => {
    const s = await stat(join(dir, name)).catch(() => undefined);
    return s ? { name, size: s.size, used: s.mtimeMs } : undefined;
  }))).filter((e) => e !== undefined);
  let total = entries.reduce((sum, e) => sum + e.size, 0);
  entries.sort((a, b) => a.used - b.used);
  for (const e of entries) {
    if (total <= maxBytes) break;
    await unlink(join(dir, e.name)).catch(() => {});
    total -= e.size;
  }
  return total;
}

/**
 * Mark a cache entry used now (`boundFolder` removes the least recently used first); never throws.
 * Why synchronous: entries are read while a start's hook threads boot, often with a worker blocked
 * on the answer (a transform). An asynchronous call wakes a thread of libuv's pool, and with twenty
 * hook threads runnable on two cores that wake-up stalled this thread 10-110 ms inside the call
 * (measured: 0.2-3 ms of it CPU); the system call alone takes microseconds.
 */
export function markUsed(file: string): void {
  const now = new Date();
  try {
    utimesSync(file, now, now);
  } catch { /* gone: nothing to mark */ }
}
