// The half every fake model server of the end-to-end tests shares (claude-, codex-, gemini- and
// opencode-netns-run.mjs, each run inside a network namespace with only loopback): read the run's
// JSON config (argv[2]: { program, args, cwd, env, timeoutMs, out, … }), record every request the
// server gets, answer each through the agent's own dialect, start the agent once the server listens,
// and write the outcome (exit code, signal, wall time, stdout, stderr, every request) to `out`.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";

/** The run's config: the JSON file named by argv[2]. @returns {any} */
export const readConfig = () => JSON.parse(readFileSync(/** @type {string} */ (process.argv[2]), "utf8"));

/**
 * Serves `answer(req, body, res, requests)` on 127.0.0.1:`port` (a request's body parsed as JSON, or
 * `{ unparsed }`), then runs the agent with `env` added to the config's; `group` ends the agent's
 * whole process group at the timeout (opencode's plugins and sandboxes), else the agent alone.
 * @param {any} config
 * @param {{ port: number; env?: Record<string, string>; group?: boolean;
 *   answer: (req: import("node:http").IncomingMessage, body: any, res: import("node:http").ServerResponse, requests: any[]) => void }} options
 */
export function serveThenRun(config, { port, env = {}, group = false, answer }) {
  /** @type {Array<{ method: string | undefined; url: string | undefined; body: any; at: number }>} */
  const requests = [];
  let started = 0;
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => { raw += d; });
    req.on("end", () => {
      let body;
      try { body = JSON.parse(raw); } catch { body = { unparsed: raw }; }
      requests.push({ method: req.method, url: req.url, body, at: Date.now() - started });
      answer(req, body, res, requests);
    });
  });
  server.listen(port, "127.0.0.1", () => {
    started = Date.now();
    const child = spawn(config.program, config.args, { cwd: config.cwd, env: { ...config.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: group });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
    const kill = () => {
      if (!group) return child.kill("SIGKILL");
      try { process.kill(-(/** @type {number} */ (child.pid)), "SIGKILL"); } catch { child.kill("SIGKILL"); }
    };
    const timer = setTimeout(kill, config.timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      writeFileSync(config.out, JSON.stringify({ code, signal, startedAt: started, ms: Date.now() - started, stdout, stderr, requests }));
      server.close();
      process.exit(0);
    });
  });
}
