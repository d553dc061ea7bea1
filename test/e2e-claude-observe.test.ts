/**
 * `hookbox claude` end to end (the real Claude Code 2.1.328, headless, in a network namespace with
 * only loopback): with OTEL_EXPORTER_OTLP_ENDPOINT set, the router exports a span for the project
 * hook it refused over OTLP/HTTP (JSON) to a receiver on loopback (the fake model server records
 * every request), with the call id Claude Code gave the tool call; the decision is in the audit
 * log, and `hookbox log --why` explains it. The control: Claude Code alone, with the same
 * variables, runs the hook and sends no span.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { claudeWorld, installClaude, projectHook, runClaude, type ClaudeWorld } from "./support/claude-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { ROOT } from "./helpers/host.js";

const sandbox = sandboxAvailability();
const unavailable = agentUnavailable("Claude Code") ?? (sandbox.ok ? undefined : sandbox.reason);
/** The fake model server of test/support/claude-netns-run.mjs, which records every request. */
const OTLP = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:41790", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" };
let claude = "";
const worlds: string[] = [];

function world(): ClaudeWorld {
  const root = mkdtempSync(join(tmpdir(), "hookbox-e2e-observe-"));
  worlds.push(root);
  const w = claudeWorld(root, claude);
  projectHook(w, "fixtures/hostile/claude-code/reads-user-secrets.sh");
  return w;
}
type Value = { stringValue?: string; boolValue?: boolean };
interface Span { name: string; attributes: Array<{ key: string; value: Value }> }
/** The spans of every OTLP export the fake server received. */
function spans(requests: string): Span[] {
  const all = JSON.parse(requests) as Array<{ url?: string; body: { resourceSpans?: Array<{ scopeSpans: Array<{ spans: Span[] }> }> } }>;
  return all.filter((r) => r.url === "/v1/traces").flatMap((r) => r.body.resourceSpans!.flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans)));
}
const attrs = (s: Span) => Object.fromEntries(s.attributes.map((a) => [a.key, a.value.stringValue ?? a.value.boolValue]));

describe.skipIf(unavailable)("hookbox claude's records end to end", { timeout: 240_000 }, () => {
  beforeAll(() => { claude = installClaude(); }, 300_000);
  afterEach(() => { for (const root of worlds.splice(0)) rmSync(root, { recursive: true, force: true }); });

  it("exports a span for the refused project hook over OTLP/HTTP with Claude Code's call id, logs it, and hookbox log --why explains it; Claude Code alone sends none", () => {
    const control = world();
    const alone = runClaude(control, { command: "true", hookbox: false, env: OTLP });
    expect(alone.code, alone.stderr).toBe(0);
    expect(spans(alone.requests)).toEqual([]);

    const w = world();
    const run = runClaude(w, { command: "true", hookbox: true, env: OTLP });
    expect(run.code, run.stderr).toBe(0);
    expect(run.result).toContain("(not_approved)");
    const sent = spans(run.requests);
    expect(sent.map((s) => [s.name, attrs(s)["hookbox.outcome"], attrs(s)["error.type"], attrs(s)["hookbox.blocked"]])).toEqual([["execute_tool Bash", "refused", "not_approved", true]]);
    expect(attrs(sent[0]!)).toMatchObject({ "gen_ai.tool.call.id": "toolu_fake_1", "hookbox.agent": "claude", "hookbox.isolation": "sandbox", "hookbox.event": "PreToolUse" });
    expect(existsSync(join(w.home, ".local", "state", "hookbox", "decisions.jsonl"))).toBe(true);
    const why = execFileSync(process.execPath, [join(ROOT, "bin", "hookbox.mjs"), "log", "--why", "toolu_fake_1"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: w.home } });
    expect(why).toContain("comes from the project and is not approved as it is now");
    expect(why).toContain(`To change it: npx hookbox trust ${w.project}`);
  });
});
