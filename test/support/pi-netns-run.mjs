// Runs inside a network namespace with only loopback (test/support/pi-agent.ts starts it with
// `unshare -n`): a fake OpenAI-compatible model server on 127.0.0.1, then pi headless against it.
// The model is scripted: its first turn asks for the `bash` tool with the configured command (or for
// the configured `tool` with its arguments); once
// a tool result is in the conversation it answers "TOOL RESULT: <what it received>".
// With `calls` (a scripted session, `session`): while the last user message holds the prompt, the model
// asks for each of `calls` in turn, then for each tool of the request that is not one of pi's own
// (an extension's, with arguments sampled from its schema), one call per turn, then answers "Done.";
// anything else (a command's message, a compaction's summary) it answers "Done.".
// With `session` (the scripted session) or `rpc` (given steps), pi runs in `--mode rpc` driven by
// pi-rpc-session.mjs instead of `-p`.
// argv[2]: a JSON file { cli, cwd, agentDir, env, args, command, tool?, timeoutMs, out, program?,
// modelsFile?, ownTools? }: the agent runs as `<program> <cli> …` (program: this Node unless given, e.g. Bun
// for oh-my-pi) and reads its models from `<agentDir>/<modelsFile>` ("models.json" unless given;
// JSON is YAML too, for oh-my-pi's models.yml). The outcome (the agent's exit code, stdout,
// stderr, and every request the model got) is written to `out`.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { MODEL_PORT, runRpcSession } from "./pi-rpc-session.mjs";
const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
/** @type {Array<{ url: string | undefined; body: any }>} */
const requests = [];
/** When pi was spawned, and when the model got its first request (ms): pi's start, for bench/extension.ts. */
let spawned = 0;
let firstRequestMs = -1;

/** pi's own tools (its built-ins), or the agent's (`ownTools`): the scripted model calls only the others of a request's tools. */
const PI_TOOLS = new Set(config.ownTools ?? ["read", "bash", "edit", "write", "grep", "find", "ls"]);

/** A value `schema` (JSON Schema, as pi sends a tool's parameters) accepts: its required members, each the simplest of its type. */
function sample(/** @type {any} */ schema) {
  if (!schema || typeof schema !== "object") return "test";
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) return sample(alternatives[0]);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "object" || schema.properties) {
    return Object.fromEntries((schema.required ?? []).map((/** @type {string} */ k) => [k, sample(schema.properties?.[k])]));
  }
  if (type === "array") return [];
  if (type === "number" || type === "integer") return 1;
  if (type === "boolean") return true;
  return "test";
}

/** The scripted call the model makes next in `parsed` (a chat request), or undefined for "Done.". */
function nextCall(/** @type {any} */ parsed) {
  const messages = parsed.messages ?? [];
  let user = -1;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === "user") { user = i; break; }
  if (user < 0 || !(parsed.tools?.length > 0) || !toolText(messages[user]).includes(config.session.prompt)) return undefined;
  const own = (parsed.tools ?? []).map((/** @type {any} */ t) => t.function ?? t).filter((/** @type {any} */ f) => !PI_TOOLS.has(f.name))
    .map((/** @type {any} */ f) => ({ name: f.name, arguments: sample(f.parameters) }));
  const calls = [...config.calls, ...own];
  const done = messages.slice(user + 1).filter((/** @type {any} */ m) => m.role === "tool").length;
  return done < calls.length ? { ...calls[done], id: `call_${done + 1}` } : undefined;
}

/** @param {object} delta @param {string | null} [finish] */
function chunk(delta, finish = null) {
  return `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1, model: "fake-model", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

/** @param {{ content: string | Array<{ text?: string }> }} message */
function toolText(message) {
  if (typeof message.content === "string") return message.content;
  return (message.content ?? []).map((part) => part.text ?? "").join("");
}

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (d) => { body += d; });
  req.on("end", () => {
    let parsed;
    try { parsed = JSON.parse(body); } catch { parsed = { unparsed: body }; }
    if (requests.length === 0) firstRequestMs = performance.now() - spawned;
    requests.push({ url: req.url, body: parsed });
    if (!req.url?.endsWith("/chat/completions")) {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("the fake model server got it");
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const tool = (parsed.messages ?? []).findLast?.((/** @type {{ role: string }} */ m) => m.role === "tool");
    if (config.calls) {
      const call = nextCall(parsed);
      if (call) {
        res.write(chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
        res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(call.arguments) } }] }));
        res.write(chunk({}, "tool_calls"));
      } else {
        res.write(chunk({ role: "assistant", content: "Done." }));
        res.write(chunk({}, "stop"));
      }
    } else if (!tool) {
      const { name, arguments: args } = config.tool ?? { name: "bash", arguments: { command: config.command } };
      res.write(chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name, arguments: "" } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] }));
      res.write(chunk({}, "tool_calls"));
    } else {
      res.write(chunk({ role: "assistant", content: `${config.reply ? `${config.reply}\n` : ""}TOOL RESULT: ${toolText(tool)}` }));
      res.write(chunk({}, "stop"));
    }
    res.write("data: [DONE]\n\n");
    res.end();
  });
});

/** Whether this namespace reaches anything beyond loopback (it must not): a TCP connect to a public address. */
function probeOutside() {
  return new Promise((resolve) => {
    const socket = connect({ host: "1.1.1.1", port: 80, timeout: 2_000 });
    socket.on("connect", () => { socket.destroy(); resolve("connected"); });
    socket.on("timeout", () => { socket.destroy(); resolve("timeout"); });
    socket.on("error", (/** @type {NodeJS.ErrnoException} */ err) => resolve(err.code ?? err.message));
  });
}
const outside = await probeOutside();

// A fixed port: the namespace is this run's own, and a hostile module under test knows where to aim.
server.listen(MODEL_PORT, "127.0.0.1", () => {
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  writeFileSync(join(config.agentDir, config.modelsFile ?? "models.json"), JSON.stringify({
    providers: {
      fake: {
        baseUrl: `http://127.0.0.1:${port}/v1`, api: "openai-completions", apiKey: config.apiKey ?? "fake-key",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        // A second model for a session's model cycle (rpc cycle_model).
        models: [{ id: "fake-model", reasoning: false }, ...(config.session || config.rpc ? [{ id: "fake-model-2", reasoning: false }] : [])],
      },
    },
  }));
  spawned = performance.now();
  // --mode rpc: the scripted session (`session`) or the given steps (`rpc`), driven by pi-rpc-session.mjs.
  if (config.session || config.rpc) {
    const args = ["--provider", "fake", "--model", "fake-model", "--no-session", ...(config.session ? ["--mode", "rpc"] : []), ...config.args];
    runRpcSession({ ...config, rpc: config.session ?? config.rpc, args }).then((session) => {
      // What pi wrote on stdout, line by line (the transcript without the driver's markers).
      const stdout = session.transcript.flatMap((/** @type {any} */ r) => ("sent" in r || "timeout" in r ? [] : ["stdout" in r ? r.stdout : JSON.stringify(r)])).map((l) => `${l}\n`).join("");
      writeFileSync(config.out, JSON.stringify({ ...session, stdout, requests, outside, firstRequestMs, elapsedMs: performance.now() - spawned }));
      server.close();
      process.exit(0);
    });
    return;
  }
  const child = spawn(config.program ?? process.execPath, [config.cli, "--provider", "fake", "--model", "fake-model", "--no-session", ...config.args], {
    cwd: config.cwd, env: config.env, stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => { stdout += d; });
  child.stderr?.on("data", (d) => { stderr += d; });
  const timer = setTimeout(() => child.kill("SIGKILL"), config.timeoutMs);
  child.on("close", (code, signal) => {
    clearTimeout(timer);
    writeFileSync(config.out, JSON.stringify({ code, signal, stdout, stderr, requests, outside, firstRequestMs, elapsedMs: performance.now() - spawned, spawnedAt: performance.timeOrigin + spawned }));
    server.close();
    process.exit(0);
  });
});

