// Runs inside a network namespace with only loopback (test/support/gemini-run.ts starts it with
// `unshare -n`): a fake Gemini API server on 127.0.0.1, then Gemini CLI (or `hookbox gemini`)
// headless against it (GOOGLE_GEMINI_BASE_URL: Gemini CLI's gateway auth). The model is scripted: a
// request offering run_shell_command, with no function response yet, gets a run_shell_command call
// with the configured command; once a function response is in the conversation it answers
// "TOOL RESULT: <what it received>"; any other request (Gemini CLI's side requests: routing,
// next-speaker checks) gets "ok". Streaming (SSE) and not. argv[2]: a JSON file { program, args,
// cwd, env, command, timeoutMs, out }. The outcome (exit code, stdout, stderr, every request the
// server got) is written to `out`.
import { readConfig, serveThenRun } from "./fake-model.mjs";

const PORT = 41791;
const config = readConfig();

/** The reply's parts for one request. @returns {any[]} */
function reply(/** @type {any} */ body) {
  const last = (body.contents ?? []).at(-1);
  const response = (last?.parts ?? []).find((/** @type {any} */ p) => p.functionResponse);
  if (response) return [{ text: `TOOL RESULT: ${JSON.stringify(response.functionResponse.response)}` }];
  const offersShell = (body.tools ?? []).some((/** @type {any} */ t) => (t.functionDeclarations ?? []).some((/** @type {any} */ f) => f.name === "run_shell_command"));
  if (offersShell) return [{ functionCall: { name: "run_shell_command", args: { command: config.command, description: "run it" } } }];
  return [{ text: "ok" }];
}

const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 };
serveThenRun(config, {
  port: PORT, env: { GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${PORT}` },
  answer: (req, body, res) => {
    const url = req.url ?? "";
    if (url.includes(":countTokens")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ totalTokens: 10 }));
      return;
    }
    if (!url.includes(":generateContent") && !url.includes(":streamGenerateContent")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
      return;
    }
    const answer = { candidates: [{ content: { role: "model", parts: reply(body) }, finishReason: "STOP", index: 0 }], usageMetadata, modelVersion: "gemini-fake" };
    if (url.includes(":streamGenerateContent")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(answer));
  },
});
