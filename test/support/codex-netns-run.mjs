// Runs inside a network namespace with only loopback (test/support/codex-run.ts starts it with
// `unshare -n`): a fake OpenAI Responses API server on 127.0.0.1, then Codex CLI (or `hookbox codex`)
// headless against it (a model provider with base_url on loopback, in the run's CODEX_HOME). The
// model is scripted: a request offering exec_command, with no function output yet, gets an
// exec_command call with the configured command; once a function output is in the input it answers
// "TOOL RESULT: <what it received>"; any other request gets "ok". Server-sent events. argv[2]: a
// JSON file { program, args, cwd, env, command, timeoutMs, out }. The outcome (exit code, stdout,
// stderr, every request the server got) is written to `out`.
import { readConfig, serveThenRun } from "./fake-model.mjs";

export const PORT = 41792;
const config = readConfig();

/** The output items of one reply. @returns {any[]} */
function reply(/** @type {any} */ body) {
  const input = Array.isArray(body.input) ? body.input : [];
  const output = input.filter((/** @type {any} */ i) => i.type === "function_call_output").at(-1);
  if (output) return [{ type: "message", id: "msg_2", role: "assistant", status: "completed", content: [{ type: "output_text", text: `TOOL RESULT: ${typeof output.output === "string" ? output.output : JSON.stringify(output.output)}`, annotations: [] }] }];
  const offers = (body.tools ?? []).some((/** @type {any} */ t) => t.name === "exec_command");
  if (offers) return [{ type: "function_call", id: "fc_1", call_id: "call_1", name: "exec_command", arguments: JSON.stringify({ cmd: config.command }), status: "completed" }];
  return [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok", annotations: [] }] }];
}

serveThenRun(config, {
  port: PORT,
  answer: (req, body, res, requests) => {
    if (!req.url?.endsWith("/responses")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [] }));
      return;
    }
    const id = `resp_${requests.length}`;
    const items = reply(body);
    res.writeHead(200, { "content-type": "text/event-stream" });
    const send = (/** @type {object} */ data) => res.write(`event: ${/** @type {any} */ (data).type}\ndata: ${JSON.stringify(data)}\n\n`);
    send({ type: "response.created", response: { id, status: "in_progress", output: [] } });
    items.forEach((item, output_index) => send({ type: "response.output_item.done", output_index, item }));
    send({ type: "response.completed", response: { id, status: "completed", output: items, usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 20 } } });
    res.end();
  },
});
