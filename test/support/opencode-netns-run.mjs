// Runs inside a network namespace with only loopback (test/support/opencode-run.ts starts it with
// `unshare -n`): a fake OpenAI-compatible model server on 127.0.0.1 (opencode's bundled
// @ai-sdk/openai-compatible provider points at it), then opencode (or `hookbox opencode`) headless
// against it. The model is scripted: a request offering the `bash` tool, with no tool result yet,
// gets a bash call with the configured command; once a tool result is in the conversation it
// answers "TOOL RESULT: <what it received>"; any other request (the title) gets "ok". argv[2]: a
// JSON file { program, args, cwd, env, command, port, timeoutMs, out }. The outcome (exit code, signal,
// stdout, stderr, every request the server got, the wall time) is written to `out`.
import { readConfig, serveThenRun } from "./fake-model.mjs";

const config = readConfig();

const chunk = (/** @type {object} */ delta, /** @type {string | null} */ finish = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const text = (/** @type {unknown} */ content) => (typeof content === "string" ? content : JSON.stringify(content));

serveThenRun(config, {
  port: config.port, group: true,
  answer: (req, body, res) => {
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
  },
});
