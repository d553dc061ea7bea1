/**
 * docs/confinement.md and the agents' pages (claude-code, codex, gemini, opencode) copy bounds from
 * the code into their prose and threat tables, as the README does into its own (test/readme.test.ts).
 * Each is built here from the code's one definition and looked for in its page, so a bound changed in
 * the code and not in the page fails. The oldest Node too: package.json's engines, the runtime
 * check (MIN_NODE_MAJOR, test/runtime.test.ts at its boundary) and every page that names it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ANNOTATE_MAX_CHARS } from "../worker/effects.mjs";
import { DEFAULTS, FRAME_SLACK_BYTES, LIMITS, MAX_FRAME_DEPTH, maxFrameBytes, renderLineChars } from "../worker/wire.mjs";
import { DISPOSE_BOUND_MS } from "../src/isolation/endpoint.js";
import { MAX_BYTES_PER_SECOND, MAX_LINE_CHARS } from "../src/isolation/output.js";
import { SANDBOX_MAX_TASKS } from "../src/isolation/bubblewrap/cgroups.js";
import { MAX_BYTES, MAX_LINES, WINDOW_MS } from "../src/extension/output.js";
import { CALLBACK_WINDOW_MS, LOG_LINES_PER_WINDOW } from "../src/gates/callback-budget.js";
import { MAX_ROOT_ENTRIES } from "../src/policy/link-walk.js";
import { resolveSandboxOptions } from "../src/options/options.js";
import { TRANSFORM_FILE_CHARACTERS, TRANSFORM_WINDOW_MS } from "../src/transform/budget.js";
import { TRANSFORM_HEAP_MB } from "../src/transform/transformer.js";
import { ROUTER_MARGIN_MS } from "../src/agents/routing-hook.js";
import { SANDBOX_MEMORY_MB } from "../src/agents/sandbox.js";
import { DEFAULT_DEADLINE_MS, LOAD_DEADLINE_MS } from "../src/opencode/plan.js";
import { PLUGIN_SANDBOX_MEMORY_MB } from "../src/opencode/unit.js";
import { CLAUDE_MCP_WAIT_MS } from "./support/claude-run.js";
import { MIN_NODE_MAJOR } from "../src/policy/runtime.js";
import { OVERLAY_CELLS } from "../src/bridge/methods.js";

const read = (doc: string) => readFileSync(new URL(`../docs/${doc}`, import.meta.url), "utf8");
const page = read("confinement.md");
const MiB = 2 ** 20;

/** A count as the pages write it: thousands apart by a space (10 000). */
const spell = (n: number) => n.toLocaleString("en").replaceAll(",", " ");

/** The phrases of `text` (its whitespace runs as one space) that do not say what the code defines. */
function mismatches(text: string): string[] {
  const flat = text.replace(/\s+/g, " ");
  const r = resolveSandboxOptions({});
  const phrases = [
    `\`dispose()\` waits at most ${DISPOSE_BOUND_MS / 1000} s per hook`,
    `lines cut at ${MAX_LINE_CHARS} characters with a marker, at most ${MAX_BYTES_PER_SECOND / 1024} KiB per stream per second`,
    `(\`timeoutMs\` ${DEFAULTS.execTimeoutMs / 1000} s, \`maxOutputBytes\` ${DEFAULTS.execOutputBytes / MiB} MiB)`,
    `\`maxMessageBytes\` × ${(maxFrameBytes(MiB) - FRAME_SLACK_BYTES) / MiB} + ${FRAME_SLACK_BYTES / MiB} MiB`,
    `(${LIMITS.maxDepth} levels below a value, plus ${LIMITS.envelopeDepth} for the envelope)`,
    `nested deeper than ${MAX_FRAME_DEPTH} levels (${LIMITS.maxDepth} below a value, ${LIMITS.envelopeDepth} of envelope)`,
    `| \`pids.max\` ${SANDBOX_MAX_TASKS} | here, at run time |`,
    `| \`pids.max\` ${SANDBOX_MAX_TASKS} | by its logic only`,
    `\`RLIMIT_NPROC\` ${SANDBOX_MAX_TASKS}, per user`,
    `hook and programs share ${SANDBOX_MAX_TASKS} tasks`,
    `(${MAX_BYTES_PER_SECOND / 1024} KiB/s inside its own thread, then ${LOG_LINES_PER_WINDOW} lines per ${CALLBACK_WINDOW_MS / 1000} s)`,
    `${MAX_BYTES_PER_SECOND / 1024} KiB/s per stream (in its runtime and on the host), lines cut at ${MAX_LINE_CHARS} characters, ${LOG_LINES_PER_WINDOW} \`onLog\` lines per ${CALLBACK_WINDOW_MS / 1000} s; inside an agent ${MAX_LINES} lines and ${MAX_BYTES / 1024} KiB per ${WINDOW_MS / 1000} s`,
    `${LIMITS.maxConcurrentCalls} calls and 1 prompt (+${LIMITS.maxQueuedPrompts} queued) at once`,
    `past ${LIMITS.maxViolations} protocol violations`,
    `cut to ${LIMITS.maxBlockReason} characters (\`LIMITS.maxBlockReason\`)`,
    `a block reason is cut to ${LIMITS.maxBlockReason} characters`,
    `at most ${ANNOTATE_MAX_CHARS} characters of text (\`ANNOTATE_MAX_CHARS\`)`,
    `at most ${ANNOTATE_MAX_CHARS} characters of text each`,
    `at most ${LIMITS.renderLines} lines of ${LIMITS.renderCharsPerColumn} characters per column (at most ${renderLineChars(Infinity)};`,
    `over \`renderBudgetMs\` (${r.renderBudgetMs} ms)`,
    `one file at most ${TRANSFORM_FILE_CHARACTERS / MiB} Mi characters`,
    `(${r.transformBudget.characters! / MiB} Mi characters and ${r.transformBudget.ms! / 1000} s of thread time per ${TRANSFORM_WINDOW_MS / 1000} s)`,
    `(${TRANSFORM_HEAP_MB} MB old, 16 MB young)`,
  ].filter((p) => !flat.includes(p));
  phrases.push(...[`every size, position, offset and margin within ±${spell(OVERLAY_CELLS)} cells or a percentage`].filter((p) => !flat.includes(p)));
  const spelt = spell(MAX_ROOT_ENTRIES);
  const entries = [...flat.matchAll(/more than ([\d ]+\d) entries/g)].map((m) => m[1]!);
  if (entries.length === 0 || entries.some((n) => n !== spelt)) phrases.push(`more than ${spelt} entries (the page: ${entries.join(", ") || "none"})`);
  for (const [, depth] of flat.matchAll(/deeper than (\d+) levels/g)) if (Number(depth) !== LIMITS.maxDepth && Number(depth) !== MAX_FRAME_DEPTH) phrases.push(`deeper than ${depth} levels`);
  return phrases;
}

describe("docs/confinement.md: figures", () => {
  it("says each bound it copies as the code defines it (the constants, the resolved options)", () => {
    expect(mismatches(page)).toEqual([]);
  });

  it("control: a page with the dispose bound, the task bound, the block reason's length and the overlay bound changed fails the check, naming each", () => {
    const changed = page.replace("waits at most 2 s per", "waits at most 5 s per").replace("share 128 tasks", "share 256 tasks")
      .replace("cut to 1000 characters (`LIMITS.maxBlockReason`)", "cut to 2000 characters (`LIMITS.maxBlockReason`)")
      .replace("within ±10 000 cells", "within ±20 000 cells");
    expect(mismatches(changed)).toEqual([
      "`dispose()` waits at most 2 s per hook",
      "hook and programs share 128 tasks",
      "cut to 1000 characters (`LIMITS.maxBlockReason`)",
      "every size, position, offset and margin within ±10 000 cells or a percentage",
    ]);
  });

  it("docs/extension.md says custom()'s overlay bound as the code defines it (OVERLAY_CELLS; the boundary: test/host-hostile.test.ts), and another figure fails", () => {
    const phrase = (text: string) => text.replace(/\s+/g, " ").includes(`each size and margin within ${spell(OVERLAY_CELLS)} cells`);
    const extension = read("extension.md");
    expect(phrase(extension)).toBe(true);
    expect(phrase(extension.replace("within 10 000 cells", "within 1 000 cells"))).toBe(false);
  });
});

/** Each agent page's phrases that do not say what the code defines (the router's margin, the hooks' output bound, opencode's deadlines and memory). */
function agentMismatches(pages: Record<string, string>): string[] {
  const margin = `with a timeout ${ROUTER_MARGIN_MS / 1000} s above the slowest hook's`;
  const output = `at most ${DEFAULTS.shellOutputBytes / MiB} MiB of stdout and of stderr`;
  const wanted: Record<string, string[]> = {
    // Claude Code's own wait, measured by test/e2e-claude-mcp-wait.test.ts.
    "claude-code.md": [margin, output, `In \`-p\` Claude Code waits about ${CLAUDE_MCP_WAIT_MS / 1000} s for a stdio server that has not answered`],
    "codex.md": [margin, output, `(the slowest hook's timeout plus ${ROUTER_MARGIN_MS / 1000} s)`],
    "gemini.md": [margin, output, `(the slowest hook's timeout plus ${ROUTER_MARGIN_MS / 1000} s)`],
    "opencode.md": [
      `(\`HOOKBOX_OPENCODE_DEADLINE_MS\`, default ${DEFAULT_DEADLINE_MS} ms; loading ${LOAD_DEADLINE_MS / 1000} s)`,
      `a memory bound of ${PLUGIN_SANDBOX_MEMORY_MB} MiB, ${PLUGIN_SANDBOX_MEMORY_MB / SANDBOX_MEMORY_MB === 2 ? "twice" : `${PLUGIN_SANDBOX_MEMORY_MB / SANDBOX_MEMORY_MB} times`} a command hook's`,
      `Bun reserves more than ${SANDBOX_MEMORY_MB} MiB`,
    ],
  };
  return Object.entries(wanted).flatMap(([doc, phrases]) => phrases.filter((p) => !pages[doc]!.replace(/\s+/g, " ").includes(p)).map((p) => `${doc}: ${p}`));
}

describe("the agents' pages: figures", () => {
  const pages = Object.fromEntries(["claude-code.md", "codex.md", "gemini.md", "opencode.md"].map((doc) => [doc, read(doc)]));

  it("say the router's margin, the hooks' output bound, Claude Code's wait for stdio servers (as measured) and opencode's deadlines and memory bound as the code defines them", () => {
    expect(agentMismatches(pages)).toEqual([]);
  });

  it("control: a claude-code page with another wait for stdio servers fails the check, naming it", () => {
    const changed = { ...pages, "claude-code.md": pages["claude-code.md"]!.replace("waits about 2 s", "waits about 5 s") };
    expect(agentMismatches(changed)).toEqual([`claude-code.md: In \`-p\` Claude Code waits about ${CLAUDE_MCP_WAIT_MS / 1000} s for a stdio server that has not answered`]);
  });

  it("control: an opencode page with another default deadline fails the check, naming it", () => {
    const changed = { ...pages, "opencode.md": pages["opencode.md"]!.replace("default 5000 ms", "default 3000 ms") };
    expect(agentMismatches(changed)).toEqual([`opencode.md: (\`HOOKBOX_OPENCODE_DEADLINE_MS\`, default ${DEFAULT_DEADLINE_MS} ms; loading ${LOAD_DEADLINE_MS / 1000} s)`]);
  });
});

/**
 * Where the oldest Node is said not as MIN_NODE_MAJOR, the oldest Node the runtime check takes: in
 * package.json's engines, and in each "Node ≥ N", "Node N or later", "Node (N or later" of the
 * README and docs/ (a minimum with a minor, `require("hookbox")`'s 20.19, is another promise).
 */
function nodeMismatches(engines: string, pages: Record<string, string>): string[] {
  const out = engines === `>=${MIN_NODE_MAJOR}` ? [] : [`package.json engines.node: ${engines}`];
  for (const [doc, text] of Object.entries(pages)) {
    const flat = text.replace(/\s+/g, " ");
    for (const m of flat.matchAll(/Node (?:≥ ?|>= ?)(\d+)(?![.\d])|Node \(?(\d+) or later/g)) {
      if (Number(m[1] ?? m[2]) !== MIN_NODE_MAJOR) out.push(`${doc}: ${m[0]}`);
    }
  }
  const said = ["README.md: Node 20 or later, or Bun", "README.md: the host runs on Node ≥ 20", "README.md: the Node (20 or later) that runs process and sandbox hooks", "docs/runtimes.md: hookbox's host runs on Node (20 or later"]
    .map((p) => p.replaceAll("20", String(MIN_NODE_MAJOR)));
  for (const p of said) {
    const [doc, phrase] = p.split(": ") as [string, string];
    if (!pages[doc]?.replace(/\s+/g, " ").includes(phrase)) out.push(`${doc} does not say: ${phrase}`);
  }
  return out;
}

describe("the oldest Node", () => {
  const engines = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { engines: { node: string } }).engines.node;
  const pages = { "README.md": readFileSync(new URL("../README.md", import.meta.url), "utf8"), ...Object.fromEntries(readdirSync(new URL("../docs/", import.meta.url)).filter((doc) => doc.endsWith(".md")).map((doc) => [`docs/${doc}`, read(doc)])) };

  it("package.json's engines, the runtime check and every page say the same oldest Node (MIN_NODE_MAJOR)", () => {
    expect(nodeMismatches(engines, pages)).toEqual([]);
  });

  it("control: engines of >=22 and a README saying Node ≥ 18 fail the check, naming each", () => {
    const readme = pages["README.md"].replace("the host runs on Node ≥ 20", "the host runs on Node ≥ 18");
    expect(nodeMismatches(">=22", { ...pages, "README.md": readme })).toEqual([
      "package.json engines.node: >=22",
      "README.md: Node ≥ 18",
      "README.md does not say: the host runs on Node ≥ 20",
    ]);
  });
});
