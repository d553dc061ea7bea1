// Runs inside a network namespace with only loopback (test/support/opencode-run.ts starts it with
// `unshare -n`): a fake OpenAI-compatible model server on 127.0.0.1 (opencode's bundled
// @ai-sdk/openai-compatible provider points at it), then opencode (or `hookbox opencode`) headless
// against it. The model is scripted: a request offering the `bash` tool, with no tool result yet,
// gets a bash call with the configured command; once a tool result is in the conversation it
// answers "TOOL RESULT: <what it received>"; any other request (the title) gets "ok". argv[2]: a
// JSON file { program, args, cwd, env, command, port, timeoutMs, out }. The outcome (exit code, signal,
// stdout, stderr, every request the server got, the wall time) is written to `out`.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
/** @type {Array<{ url: string | undefined; body: any; at: number }>} */
const requests = [];
let started = 0;

const chunk = (/** @type {object} */ delta, /** @type {string | null} */ finish = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const text = (/** @type {unknown} */ content) => (typeof content === "string" ? content : JSON.stringify(content));

const server = createServer((req, res) => {
  let raw = "";
  req.on("data", (d) => { raw += d; });
  req.on("end", () => {
    let body;
    try { body = JSON.parse(raw); } catch { body = { unparsed: raw }; }
    requests.push({ url: req.url, body, at: Date.now() - started });
    if (!req.url?.endsWith("/chat/completions")) { res.writeHead(404, { "content-type": "application/json" }); res.end("{}"); return; }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const last = (body.messages ?? []).at(-1);
    if (last?.role === "tool") {
      res.write(chunk({ role: "assistant", content: `TOOL RESULT: ${text(last.content)}` }));
      res.write(chunk({}, "stop"));
    } else if ((body.tools ?? []).some((/** @type {any} */ t) => t.function?.name === "bash")) {
      res.write(chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "bash", arguments: "" } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ command: config.command, description: "run it" }) } }] }));
      res.write(chunk({}, "tool_calls"));
    } else {
      res.write(chunk({ role: "assistant", content: "ok" }));
      res.write(chunk({}, "stop"));
    }
    res.write(`data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\n`);
    res.end("data: [DONE]\n\n");
  });
});

server.listen(config.port, "127.0.0.1", () => {
  started = Date.now();
  // Its own process group, so the timeout ends opencode and everything it started (bwrap, plugins' processes).
  const child = spawn(config.program, config.args, { cwd: config.cwd, env: config.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => { stdout += d; });
  child.stderr.on("data", (d) => { stderr += d; });
  const timer = setTimeout(() => { try { process.kill(-(/** @type {number} */ (child.pid)), "SIGKILL"); } catch { child.kill("SIGKILL"); } }, config.timeoutMs);
  child.on("close", (code, signal) => {
    clearTimeout(timer);
    writeFileSync(config.out, JSON.stringify({ code, signal, ms: Date.now() - started, stdout, stderr, requests }));
    server.close();
    process.exit(0);
  });
});
