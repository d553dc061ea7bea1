/**
 * pi's own example extensions (the ~70 of `examples/extensions/` in the installed pi 0.73.1), each
 * loaded through `isolate([example])` inside pi's own extension loader and runner, as
 * test/extension.test.ts drives them. One function classifies each example; `scripts/examples-table.ts`
 * writes the table of docs/pi-examples.md from it and test/extension-examples.test.ts checks the
 * table against it, so the table is never hand-written.
 *
 * Outcomes:
 * - `runs unchanged`: loaded, every registration it makes natively is mirrored on pi's `pi`, and
 *   `session_start`, `session_shutdown` (and `tool_call`, compared with the same example run
 *   natively in pi, when it has a handler) ran without a fault;
 * - `refused`: the adapter refused a member, by name (at load, or when a handler called it), or a
 *   handler called a member of pi's `ctx` that hookbox's `ctx` does not have (a TypeError);
 * - `policy`: loaded, and the default policy (`confined`) denied what a handler tried;
 * - `needs dependencies`: an npm package the example imports is not installed;
 * - `broken`: anything else (a hookbox bug to fix).
 *
 * Run it only where nothing can leave the machine: `scripts/examples-table.ts` runs it inside a
 * network namespace with only loopback, with a fresh cwd and HOME.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { isolate, type IsolateOptions } from "../src/extension/adapter.js";
import { SANDBOX_HOME } from "../src/isolation/bubblewrap/bwrap.js";

export const OUTCOMES = ["runs unchanged", "refused", "policy", "needs dependencies", "broken"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface ExampleRow {
  /** The example's entry, relative to pi's `examples/extensions/`. */
  file: string;
  outcome: Outcome;
  /** The member refused, what the policy denied, the missing package, or the fault. */
  detail: string;
  /** For `refused`: the adapter's why, when it gave one. */
  why?: string;
}

/** pi's examples folder inside the installed package (`installDir` as scripts/install-pi.sh prints it). */
export function examplesDir(installDir: string): string {
  return join(installDir, "node_modules", "@mariozechner", "pi-coding-agent", "examples", "extensions");
}

/**
 * Every example's entry, as pi discovers extensions in a folder (`discoverExtensionsInDir` of its
 * loader): each `*.ts` file, and each subfolder's `package.json` `pi.extensions` or `index.ts`.
 */
export function listExamples(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isFile() && entry.name.endsWith(".ts")) { out.push(entry.name); continue; }
    if (!entry.isDirectory()) continue;
    const folder = join(dir, entry.name);
    let declared: string[] = [];
    try {
      const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { pi?: { extensions?: string[] } };
      declared = (manifest.pi?.extensions ?? []).map((p) => join(folder, p)).filter((p) => existsSync(p));
    } catch { /* no manifest */ }
    if (declared.length === 0 && existsSync(join(folder, "index.ts"))) declared = [join(folder, "index.ts")];
    out.push(...declared.map((p) => relative(dir, p)));
  }
  return out;
}

// pi's modules are imported by path from the cache, untyped.
type Any = any;
import type { Pi } from "../test/support/pi-run.js";
export { importPi, type Pi } from "../test/support/pi-run.js";

/** What pi's runner needs bound before events (as pi's agent session binds it): benign stand-ins. */
function bind(runner: Any): void {
  const none = () => undefined;
  runner.bindCore(
    {
      sendMessage: none, sendUserMessage: none, appendEntry: none, setSessionName: none, getSessionName: none, setLabel: none,
      getActiveTools: () => [], getAllTools: () => [], setActiveTools: none, refreshTools: none, getCommands: () => [],
      setModel: async () => false, getThinkingLevel: () => "off", setThinkingLevel: none,
    },
    {
      getModel: none, isIdle: () => true, getSignal: none, abort: none, hasPendingMessages: () => false, shutdown: none,
      getContextUsage: none, compact: none, getSystemPrompt: () => "",
    },
  );
}

/** The tool calls an example's `tool_call` handler gets, isolated and natively: a dangerous command, a write to `.env`. */
const TOOL_CALLS = [
  { type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "rm -rf build" } },
  { type: "tool_call", toolName: "write", toolCallId: "2", input: { path: ".env", content: "x" } },
];

const USER = { role: "user", content: "Clean up the build folder.", timestamp: 1 };
const ASSISTANT = {
  role: "assistant", content: [{ type: "text", text: "Done." }], api: "openai-completions", provider: "fake", model: "fake-model",
  usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
  stopReason: "stop", timestamp: 2,
};

/**
 * One prompt of the agent, event by event, as pi's agent session emits them in `pi -p` (after
 * `session_start`): what the example is exercised with. Each returns the event's name.
 */
function aPrompt(runner: Any, cwd: string): Array<() => Promise<string>> {
  const emit = (event: Record<string, unknown>) => async () => { await runner.emit(event); return event.type as string; };
  const bash = { toolName: "bash", toolCallId: "3", input: { command: "ls" } };
  return [
    async () => {
      await runner.emitBeforeAgentStart(USER.content, undefined, "You are pi.", { cwd, selectedTools: ["read", "bash", "edit", "write"], contextFiles: [], skills: [] });
      return "before_agent_start";
    },
    emit({ type: "model_select", model: { provider: "fake", id: "fake-model" }, previousModel: undefined, source: "set" }),
    emit({ type: "agent_start" }),
    emit({ type: "turn_start", turnIndex: 0, timestamp: 1 }),
    async () => { await runner.emitContext([USER]); return "context"; },
    emit({ type: "message_start", message: ASSISTANT }),
    emit({ type: "tool_execution_start", toolCallId: bash.toolCallId, toolName: bash.toolName, args: bash.input }),
    async () => {
      await runner.emitToolResult({ type: "tool_result", ...bash, content: [{ type: "text", text: "README.md" }], isError: false, details: undefined });
      return "tool_result";
    },
    emit({ type: "tool_execution_end", toolCallId: bash.toolCallId, toolName: bash.toolName, result: { content: [{ type: "text", text: "README.md" }] }, isError: false }),
    emit({ type: "turn_end", turnIndex: 0, message: ASSISTANT, toolResults: [] }),
    emit({ type: "agent_end", messages: [USER, ASSISTANT] }),
    emit({ type: "session_shutdown", reason: "quit" }),
  ];
}

const REGISTRIES = ["tools", "commands", "flags", "shortcuts", "messageRenderers"] as const;

/**
 * Load `file` (relative to `dir`) through `isolate` in pi's loader and runner (`cwd` is pi's), and
 * classify what happened. Faults the adapter reports on stderr (pi has no UI here) are read from
 * `console.error` while it runs.
 */
export async function classifyExample(pi: Pi, dir: string, file: string, cwd: string, options: IsolateOptions = {}): Promise<ExampleRow> {
  const path = join(dir, file);
  const problems: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => { problems.push(args.map(String).join(" ")); };
  try {
    const runtime = pi.loader.createExtensionRuntime();
    const isolated = await pi.loader.loadExtensionFromFactory(isolate([path], options), cwd, undefined, runtime, "<isolated>");
    const runner = new pi.Runner([isolated], runtime, cwd, pi.SessionManager.inMemory(cwd), {});
    bind(runner);
    runner.onError((e: { error: string }) => problems.push(e.error));
    await runner.emit({ type: "session_start", reason: "startup" });
    const loadFailed = problems.find((p) => p.includes(" did not load ("));
    if (loadFailed) {
      await runner.emit({ type: "session_shutdown", reason: "quit" });
      return classify(file, loadFailed, "at load", dir, cwd);
    }
    // The same example natively in pi: what it registers, and what its tool_call handler answers.
    const native = await pi.loader.loadExtensions([path], cwd);
    if (native.errors.length > 0) return { file, outcome: "broken", detail: `loads isolated, not natively: ${clean(native.errors[0].error, dir, cwd)}` };
    const own = native.extensions[0];
    const missing = [...own.handlers.keys()].filter((e: string) => !isolated.handlers.has(e)).map((e: string) => `pi.on("${e}")`);
    for (const registry of REGISTRIES) missing.push(...[...own[registry].keys()].filter((k: string) => !isolated[registry].has(k)).map((k: string) => `${registry} ${k}`));
    if (missing.length > 0) return { file, outcome: "broken", detail: `registered natively, not mirrored: ${missing.join(", ")}` };
    const exercised = new Set<string>(own.handlers.has("session_start") ? ["session_start"] : []);
    if (own.handlers.has("tool_call")) {
      const nativeRunner = new pi.Runner(native.extensions, native.runtime, cwd, pi.SessionManager.inMemory(cwd), {});
      bind(nativeRunner);
      for (const call of TOOL_CALLS) {
        const [mine, theirs] = [await runner.emitToolCall(call), await nativeRunner.emitToolCall(call)];
        if (JSON.stringify(mine) !== JSON.stringify(theirs)) {
          return { file, outcome: "broken", detail: `tool_call ${call.toolName} answered ${JSON.stringify(mine)} isolated, ${JSON.stringify(theirs)} natively` };
        }
      }
      exercised.add("tool_call (as natively)");
    }
    for (const step of aPrompt(runner, cwd)) {
      const event = await step();
      if (own.handlers.has(event)) exercised.add(event);
      // The adapter's report of the fault names the event; a policy notice shown before it (src/extension/notices.ts) does not.
      if (problems.length > 0) return classify(file, problems.find((p) => /: \w+ in \w+: /.test(p)) ?? problems[0]!, "in a handler", dir, cwd);
    }
    const untried = [...own.handlers.keys()].filter((e: string) => e !== "tool_call" && !exercised.has(e));
    const detail = [exercised.size ? `exercised: ${[...exercised].join(", ")}` : "", untried.length ? `not exercised: ${untried.join(", ")}` : ""];
    return { file, outcome: "runs unchanged", detail: detail.filter(Boolean).join("; ") || "subscribes to no event" };
  } finally {
    console.error = original;
  }
}

/** The text of a problem with the machine's paths taken out (the table must not depend on where pi or the run lives). */
function clean(text: string, dir: string, cwd: string): string {
  // HOME is a fresh folder per run (scripts/examples-table.ts), and /home/hook inside the sandbox: both are "~".
  const homes = [process.env.HOME, SANDBOX_HOME].filter((h): h is string => Boolean(h) && h !== "/");
  let out = text.split(`${dir}/`).join("").split(dir).join("examples").split(`${cwd}/`).join("./").split(cwd).join(".");
  for (const home of homes) out = out.split(home).join("~");
  return out.replace(/\s+/g, " ").trim();
}

function classify(file: string, raw: string, when: string, dir: string, cwd: string): ExampleRow {
  const text = clean(raw, dir, cwd);
  // In a handler, the adapter's report names the event: "<module>: handler_threw in session_start: …".
  const event = /: \w+ in (\w+): /.exec(text)?.[1];
  const where = when === "at load" ? "at load" : event ? `in ${event}` : when;
  // The member as the adapter names it: pi.on("event"), pi.registerTool("name"), pi.registerTool's renderCall, pi.events, ctx.ui.setTheme…
  const refused = /(pi\.on\("[^"]*"\)|pi\.\w+\("[^"]*"\)|pi\.\w+'s \w+|pi\.\w+|ctx(?:\.ui)?\.\w+(?: with a component factory)?) is refused by hookbox\/extension: (.*?)(?: \(registered after load\))?(?:;|$)/.exec(text);
  if (refused) return { file, outcome: "refused", detail: `${refused[1]} (${/registered after load/.test(text) ? "registered after load" : where})`, why: refused[2]!.trim() };
  const late = /a (tool|command|flag|shortcut) registered after load \("[^"]*"\) is refused by hookbox\/extension: (.*?)(?: \(registered after load\))?(?:;|$)/.exec(text);
  if (late) return { file, outcome: "refused", detail: `a ${late[1]} registered after load`, why: late[2]!.trim() };
  const ctxMember = /\b(ctx(?:\.ui)?\.\w+) is not a function/.exec(text);
  if (ctxMember) return { file, outcome: "refused", detail: `${ctxMember[1]} (${where})`, why: "not in hookbox's ctx yet: calling it throws a TypeError in the handler" };
  const unknownResult = /invalid_result in (\w+): .*Unrecognized keys?: "([^"]+)"/.exec(text);
  if (unknownResult) return { file, outcome: "refused", detail: `${unknownResult[1]} result's ${unknownResult[2]} (${where})`, why: "hookbox's runner has no rule for this member of the result yet: reported as invalid_result, not applied" };
  const missing = /Cannot find (?:module|package) '([^'./][^']*)'/.exec(text);
  if (missing) return { file, outcome: "needs dependencies", detail: missing[1]! };
  const denied = /(\w+) of (\S+) was denied by the hook's policy/.exec(text);
  if (denied) return { file, outcome: "policy", detail: `${denied[1]} of ${denied[2]} (${where})` };
  const exec = /pi\.exec is not allowed for this hook \(([^)]*)\); allow "([^"]*)"/.exec(text);
  if (exec) return { file, outcome: "policy", detail: `pi.exec("${exec[2]}"): ${exec[1]} (${where})` };
  return { file, outcome: "broken", detail: `${where}: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}` };
}

// ---------------------------------------------------------------------------------------------
// The table in docs/pi-examples.md, between two markers.

export const TABLE_START = "<!-- examples-table:start (generated by npm run examples-table; do not edit) -->";
export const TABLE_END = "<!-- examples-table:end -->";

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The generated part of the doc: counts, one row per example, and why each refused member is refused. */
export function renderTable(rows: ExampleRow[], label: string): string {
  const counts = OUTCOMES.map((o) => `${rows.filter((r) => r.outcome === o).length} ${o}`).join(", ");
  const whys = new Map<string, { why: string; count: number }>();
  for (const r of rows) {
    if (r.outcome !== "refused" || !r.why) continue;
    const member = r.detail.replace(/ \(.*$/, "");
    whys.set(member, { why: r.why, count: (whys.get(member)?.count ?? 0) + 1 });
  }
  return [
    TABLE_START,
    "",
    `${label}: ${rows.length} examples: ${counts}.`,
    "",
    "| example | outcome | member / what / why |",
    "| --- | --- | --- |",
    ...rows.map((r) => `| \`${r.file}\` | ${r.outcome} | ${cell(r.detail)} |`),
    "",
    "Each refused member, how many examples it is the first refusal of, and why (the adapter's message):",
    "",
    "| member | examples | why |",
    "| --- | --- | --- |",
    ...[...whys].sort(([a], [b]) => a.localeCompare(b)).map(([member, { why, count }]) => `| \`${cell(member)}\` | ${count} | ${cell(why)} |`),
    "",
    TABLE_END,
  ].join("\n");
}

/** The line above the table: which agent, how the examples were isolated. */
export const tableLabel = (isolation: string) => `pi 0.73.1, \`isolate([example])\` with the default policy (\`confined\`), ${isolation} isolation`;

/** The generated part of `doc` (markers included), or undefined when it has none. */
export function tableOf(doc: string): string | undefined {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  return start < 0 || end < start ? undefined : doc.slice(start, end + TABLE_END.length);
}

/** `doc` with its generated part replaced by `table`. */
export function withTable(doc: string, table: string): string {
  const current = tableOf(doc);
  if (current === undefined) throw new Error(`the doc has no ${TABLE_START} … ${TABLE_END} markers`);
  return doc.replace(current, () => table);
}
