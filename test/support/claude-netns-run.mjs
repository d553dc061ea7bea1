// Runs inside a network namespace with only loopback (test/support/claude-run.ts starts it with
// `unshare -n`): a fake Anthropic Messages server on 127.0.0.1, then Claude Code (or `hookbox
// claude`) headless against it. The model is scripted: a request offering the Bash tool, with no
// tool result yet, gets a Bash tool call with the configured command; once a tool result is in the
// conversation it answers "TOOL RESULT: <what it received>"; any other request (Claude Code's side
// requests) gets "ok". Streaming and non-streaming. argv[2]: a JSON file { program, args, cwd, env,
// command, timeoutMs, out }; ANTHROPIC_BASE_URL is added to env. The outcome (exit code, stdout,
// stderr, every request the server got) is written to `out`.
import { readConfig, serveThenRun } from "./fake-model.mjs";

const PORT = 41790;
const config = readConfig();

/** @param {any} content */
function text(content) {
  if (typeof content === "string") return content;
  return (content ?? []).map((/** @type {any} */ part) => part.text ?? "").join("");
}

/** The reply's content blocks for one request. @returns {{ blocks: any[]; stop: string }} */
function reply(/** @type {any} */ body) {
  if (config.calls) return scripted(body);
  const last = (body.messages ?? []).at(-1);
  const result = Array.isArray(last?.content) ? last.content.find((/** @type {any} */ p) => p.type === "tool_result") : undefined;
  if (result) return { blocks: [{ type: "text", text: `TOOL RESULT: ${text(result.content)}` }], stop: "end_turn" };
  const offersBash = (body.tools ?? []).some((/** @type {any} */ t) => t.name === "Bash");
  if (offersBash) return { blocks: [{ type: "tool_use", id: "toolu_fake_1", name: "Bash", input: { command: config.command, description: "run it" } }], stop: "tool_use" };
  return { blocks: [{ type: "text", text: "ok" }], stop: "end_turn" };
}

/** The system prompt's text of a request. */
const systemText = (/** @type {any} */ body) => (typeof body.system === "string" ? body.system : text(body.system));

/**
 * With `config.calls` ([{ name, input, agent? }]): the k-th tool call of the request's thread once
 * k tool results are in the conversation (when the request offers that tool), then "DONE"; a request
 * offering no tools gets "ok". A call with `agent: "<marker>"` belongs to the subagent whose system
 * prompt holds the marker; the others to the main thread.
 * @returns {{ blocks: any[]; stop: string }}
 */
function scripted(/** @type {any} */ body) {
  const system = systemText(body);
  const inAgent = config.calls.some((/** @type {any} */ c) => c.agent && system.includes(c.agent));
  const thread = config.calls.filter((/** @type {any} */ c) => (c.agent ? system.includes(c.agent) : !inAgent));
  const results = (body.messages ?? []).flatMap((/** @type {any} */ m) => (Array.isArray(m.content) ? m.content : [])).filter((/** @type {any} */ p) => p.type === "tool_result");
  const next = thread[results.length];
  if (next && (body.tools ?? []).some((/** @type {any} */ t) => t.name === next.name)) {
    return { blocks: [{ type: "tool_use", id: `toolu_fake_${results.length + 1}`, name: next.name, input: next.input }], stop: "tool_use" };
  }
  return { blocks: [{ type: "text", text: (body.tools ?? []).length > 0 ? "DONE" : "ok" }], stop: "end_turn" };
}

const usage = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
serveThenRun(config, {
  port: PORT, env: { ANTHROPIC_BASE_URL: `http://127.0.0.1:${PORT}` },
  answer: (req, body, res, requests) => {
    if (!req.url?.startsWith("/v1/messages") || req.url.startsWith("/v1/messages/count_tokens")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(req.url?.startsWith("/v1/messages/count_tokens") ? { input_tokens: 10 } : {}));
      return;
    }
    const { blocks, stop } = reply(body);
    const message = { id: `msg_fake_${requests.length}`, type: "message", role: "assistant", model: body.model ?? "claude-fake", stop_sequence: null };
    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ...message, content: blocks, stop_reason: stop, usage }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (/** @type {string} */ type, /** @type {object} */ data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send("message_start", { message: { ...message, content: [], stop_reason: null, usage } });
    blocks.forEach((block, index) => {
      if (block.type === "tool_use") {
        send("content_block_start", { index, content_block: { ...block, input: {} } });
        send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
      } else {
        send("content_block_start", { index, content_block: { type: "text", text: "" } });
        send("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
      }
      send("content_block_stop", { index });
    });
    send("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } });
    send("message_stop", {});
    res.end();
  },
});
