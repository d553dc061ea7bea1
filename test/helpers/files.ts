/** Hook modules written at test time (ones that cannot be fixtures: a syntax error fails tsc). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh temporary folder, removed after the file's tests. */
export function tempDir(prefix = "hookbox-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Write `source` to `dir/rel` (folders created) and return its absolute path. */
export function writeHook(dir: string, rel: string, source: string): string {
  const file = join(dir, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, source);
  return file;
}

/** A hook module that blocks every tool call with `reason`, so a test can tell which file loaded. */
export const blocksWith = (reason: string) =>
  `export default (pi: any) => { pi.on("tool_call", () => ({ block: true, reason: ${JSON.stringify(reason)} })); };\n`;
