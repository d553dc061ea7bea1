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

/** A long-running `hookbox …args` (`--watch`): what it printed so far, and a wait for a text. */
export interface Watching {
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves once stdout holds `text` (a watcher reacts in its own time: no fixed wait). */
  seen(text: string): Promise<void>;
  /** Ctrl-C, then its exit code. */
  stop(): Promise<number | null>;
}

export function watching(args: string[], cwd: string): Watching {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const waiters: Array<() => void> = [];
  child.stdout.on("data", (d) => { stdout += d; for (const w of waiters.splice(0)) w(); });
  child.stderr.on("data", (d) => { stderr += d; });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    get stdout() { return stdout; },
    get stderr() { return stderr; },
    seen: (text) => new Promise<void>((resolve, reject) => {
      const check = () => (stdout.includes(text) ? resolve() : waiters.push(check));
      child.once("exit", () => reject(new Error(`exited before printing ${JSON.stringify(text)}: ${stdout}${stderr}`)));
      // A diagnostic, not a timing assertion: say what was printed if the text never comes.
      setTimeout(() => reject(new Error(`never printed ${JSON.stringify(text)}; stdout so far:\n${stdout}\nstderr:\n${stderr}`)), 20_000).unref();
      check();
    }),
    stop: () => { child.kill("SIGINT"); return exited; },
  };
}
