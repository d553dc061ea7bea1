/**
 * Why these checks: hookbox's default cache folders sit in the shared temporary folder, where
 * another user could have made one first and filled it. Only a folder this user owns, closed to
 * others, is used (made with mode 0700 when missing).
 */
import { mkdirSync, statSync } from "node:fs";

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
