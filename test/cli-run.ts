/** Run the real `hookbox` bin as a child process (from this checkout: the TypeScript source via tsx). */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));
export const BIN = fileURLToPath(new URL("../bin/hookbox.mjs", import.meta.url));

export interface Ran { code: number | null; stdout: string; stderr: string }

/** `hookbox …args` in `cwd` (default: the checkout), with `stdin` piped in and `env` added when given. */
export function hookbox(args: string[], options: { cwd?: string; stdin?: string; env?: Record<string, string> } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...options.env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}
