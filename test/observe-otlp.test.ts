/**
 * `hookbox claude-hook` (what Claude Code runs for every event under `hookbox claude`) exports its
 * spans over OTLP/HTTP with JSON when OTEL_EXPORTER_OTLP_ENDPOINT is set, through the SDK packages
 * installed beside hookbox: the real bin, real hooks, a real receiver on loopback decoding what
 * arrives. The control: the same run without the variable sends nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planText } from "../src/agents/plan.js";
import type { ClaudePlan } from "../src/claude/plan.js";
import type { AgentPlan } from "../src/agents/dialect.js";
import { parseClaudeSettings } from "../src/claude/settings.js";
import { launchProblems } from "../src/observe/launch.js";
import { hookbox } from "./cli-run.js";

type Value = { stringValue?: string; boolValue?: boolean; intValue?: number; doubleValue?: number };
interface Span { name: string; traceId: string; status?: { code?: number }; attributes: Array<{ key: string; value: Value }> }

const root = mkdtempSync(join(tmpdir(), "hookbox-otlp-"));
const received: Array<{ path: string; type: string; spans: Span[] }> = [];
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => { body += d; });
    req.on("end", () => {
      const doc = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }> };
      received.push({ path: req.url!, type: String(req.headers["content-type"]), spans: doc.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)) });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => {
  server.close();
  rmSync(root, { recursive: true, force: true });
});

const attrs = (s: Span) => Object.fromEntries(s.attributes.map((a) => [a.key, a.value.stringValue ?? a.value.boolValue ?? a.value.intValue ?? a.value.doubleValue]));

describe("OTLP export from hookbox claude's router", () => {
  it("sends one span per hook run to the OTLP/HTTP endpoint, as JSON, with the call id, outcome and code; without the variable, nothing", async () => {
    const file = "/home/u/.claude/settings.json";
    const settings = { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [
      { type: "command", command: "cat >/dev/null; exit 0" },
      { type: "command", command: "cat >/dev/null; echo 'no rm' >&2; exit 2" },
      { type: "command", command: "cat >/dev/null; exit 3" },
    ] }] } };
    const plan: ClaudePlan = { project: root, hooks: parseClaudeSettings(JSON.stringify(settings), file, "user").hooks, refused: [], maxOutputBytes: 1 << 20 };
    const planFile = join(root, "plan.json");
    const { text, sha256 } = planText(plan);
    writeFileSync(planFile, text);
    const event = (id: string) => JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_use_id: id, tool_input: { command: "rm -rf /" } });
    const env = { XDG_STATE_HOME: join(root, "state"), OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" };
    const control = await hookbox(["claude-hook", planFile, sha256], { stdin: event("toolu_control"), env });
    expect(control.code).toBe(2);
    expect(received).toEqual([]);
    const ran = await hookbox(["claude-hook", planFile, sha256], { stdin: event("toolu_otlp"), env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
    expect(ran.code).toBe(2);
    expect(ran.stderr).not.toContain("no spans are exported");
    expect(received.map((r) => [r.path, r.type])).toEqual([["/v1/traces", "application/json"]]);
    const spans = received[0]!.spans;
    expect(spans.map((s) => [s.name, attrs(s)["hookbox.outcome"], attrs(s)["error.type"] ?? null, attrs(s)["gen_ai.tool.call.id"]]).sort()).toEqual([
      ["execute_tool Bash", "allowed", null, "toolu_otlp"],
      ["execute_tool Bash", "blocked", null, "toolu_otlp"],
      ["execute_tool Bash", "failed", "crashed", "toolu_otlp"],
    ]);
    for (const s of spans) expect(attrs(s)).toMatchObject({ "gen_ai.tool.name": "Bash", "hookbox.agent": "claude", "hookbox.isolation": "as-user", "hookbox.event": "PreToolUse" });
    expect(spans.find((s) => attrs(s)["error.type"] === "crashed")!.status?.code).toBe(2);
  });
});

describe("OTLP export from the routers of hookbox codex and gemini", () => {
  it("a codex-hook run exports one span per hook to the endpoint the launcher handed it in its plan (Codex need not pass OTEL_* to hooks); a plan without it sends nothing", async () => {
    const hook = { source: "user" as const, file: "/home/u/.codex/hooks.json", at: "hooks.PreToolUse[0].hooks[0]", event: "PreToolUse", matcher: "^Bash$", command: "cat >/dev/null; exit 0", name: "ok", timeoutMs: 5_000 };
    const event = (id: string) => JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_use_id: id, tool_input: { command: "ls" } });
    const env = { XDG_STATE_HOME: join(root, "state") };
    const before = received.length;
    const run = async (name: string, plan: AgentPlan) => {
      const planFile = join(root, `${name}.json`);
      const { text, sha256 } = planText(plan);
      writeFileSync(planFile, text);
      return hookbox(["codex-hook", planFile, sha256], { stdin: event(`call_${name}`), env });
    };
    const control = await run("codex-plain", { project: root, hooks: [hook], refused: [], maxOutputBytes: 1 << 20 });
    expect(control.code, control.stderr).toBe(0);
    expect(received.length).toBe(before);
    const ran = await run("codex-otel", { project: root, hooks: [hook], refused: [], maxOutputBytes: 1 << 20, otel: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" } });
    expect(ran.code, ran.stderr).toBe(0);
    const spans = received.slice(before).flatMap((r) => r.spans);
    expect(spans.map((s) => [attrs(s)["hookbox.agent"], attrs(s)["hookbox.outcome"], attrs(s)["gen_ai.tool.call.id"]])).toEqual([["codex", "allowed", "call_codex-otel"]]);
  });
});

describe("what hookbox claude says at its start about its records", () => {
  it("names an audit log it cannot write and an OTLP protocol it does not export, and nothing when both work", () => {
    const file = join(root, "a-file");
    writeFileSync(file, "");
    expect(launchProblems({ XDG_STATE_HOME: file, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toEqual([
      expect.stringMatching(/^the audit log .*a-file\/hookbox\/decisions\.jsonl cannot be written \(.*\): decisions are not recorded there/),
      'OTEL_EXPORTER_OTLP_PROTOCOL is "grpc"; hookbox exports its spans over "http/json" only, so none are exported',
    ]);
    expect(launchProblems({ XDG_STATE_HOME: join(root, "state"), OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1" })).toEqual([]);
    expect(launchProblems({ HOOKBOX_AUDIT: "off" })).toEqual([]);
  });
});
