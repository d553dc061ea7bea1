/** Test support: a temporary project folder and home folder, removed after each test. */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

const made: string[] = [];
afterEach(() => { for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true }); });

export function projectAndHome(prefix = "hookbox-discovery-"): { cwd: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  made.push(root);
  const cwd = join(root, "project");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  return { cwd, home };
}
