import { existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ANNOTATE_MAX_CHARS } from "../worker/effects.mjs";
import { DEFAULTS, LIMITS, renderLineChars } from "../worker/wire.mjs";
import { AGENT_DEADLINES } from "../src/extension/adapter.js";
import { MAX_LINES, WINDOW_MS } from "../src/extension/output.js";
import { CALLBACK_WINDOW_MS, EXEC_RECORDS_PER_WINDOW, LOG_LINES_PER_WINDOW, NET_RECORDS_PER_WINDOW } from "../src/gates/callback-budget.js";
import { defaultTransformCacheDir } from "../src/gates/private-dir.js";
import * as api from "../src/index.js";
import { HOOK_ERROR_CODES, SESSION_MANAGER_METHODS } from "../src/index.js";
import { AUDIT_DEFAULTS } from "../src/observe/audit-log.js";
import { resolveSandboxOptions } from "../src/options/options.js";
import { MAX_ROOT_ENTRIES } from "../src/policy/link-walk.js";
import { presets } from "../src/policy/policy.js";
import { TRANSFORM_WINDOW_MS } from "../src/transform/budget.js";
import { TRANSFORM_HEAP_MB } from "../src/transform/transformer.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/** The text of the `## <title>` section of `text`, up to the next `## ` heading. */
function section(title: string, text = readme): string {
  const at = text.indexOf(`\n## ${title}\n`);
  expect(at, `README has "## ${title}"`).toBeGreaterThan(-1);
  const end = text.indexOf("\n## ", at + 1);
  return text.slice(at, end === -1 ? undefined : end);
}

/** The rows of the first table in `text` whose header row is `header`, each split into cells. */
function table(text: string, header: string): string[][] {
  const start = text.indexOf(`${header}\n`);
  expect(start, `the table "${header}"`).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of text.slice(start).split("\n").slice(2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

/** Every name src/index.ts exports, types included, as the compiler sees it. */
function compiledExports(): string[] {
  const entry = new URL("../src/index.ts", import.meta.url).pathname;
  const program = ts.createProgram([entry], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowJs: true, noEmit: true, skipLibCheck: true, noLib: true, types: [] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return checker.getExportsOfModule(module).map((s) => s.name);
}

describe("README", () => {
  it("stays at most 450 lines: the detail lives in docs/", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(450);
  });

  it("documents every error code in its error table, and no code that does not exist", () => {
    const documented = [...section("Errors").matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented).toEqual([...HOOK_ERROR_CODES]);
  });

  it("names every runtime export of src/index.ts in its API table, and nothing there that src/index.ts does not export", () => {
    const named = table(section("API"), "| export | what |")
      .flatMap(([first]) => [...first!.matchAll(/`([A-Za-z_$][\w$]*)[^`]*`/g)].map((m) => m[1]!));
    expect(named.length).toBeGreaterThan(0);
    expect(Object.keys(api).filter((n) => !named.includes(n))).toEqual([]);
    const exported = new Set(compiledExports());
    expect(named.filter((n) => !exported.has(n))).toEqual([]);
  });
});

const mib = (bytes: number) => `${bytes / 2 ** 20} MiB`;
const mi = (n: number) => `${n / 2 ** 20} Mi`;
const seconds = (ms: number) => `${ms / 1000} s`;
const minutes = (ms: number) => `${ms / 60_000} min`;
const hours = (ms: number) => `${ms / 3_600_000} hour`;
const OPTIONS = "Options (`SandboxOptions`, per hook with `perHook: { [path]: … }`)";

/** What a script under scripts/ pins: `install-agent.sh <name> <package> "<version>"`, Bun's `version="…"`. */
function pinned(script: string): string {
  const text = readFileSync(new URL(`../scripts/${script}`, import.meta.url), "utf8");
  return /install-agent\.sh" \S+ "\S+" "([\d.]+)"/.exec(text)?.[1] ?? /^version="([\d.]+)"/m.exec(text)![1]!;
}

/**
 * Each figure the README copies from the code, as the README's words built from the code's one definition,
 * checked against `text`: what is missing, or the default cell of an option that differs.
 */
function figureMismatches(text: string): string[] {
  const r = resolveSandboxOptions({});
  const rows = new Map(table(section(OPTIONS, text), "| option | default | meaning |").map(([o, d, m]) => [o!, { d: d!, m: m! }]));
  const cells: Record<string, string> = {
    "`deadlines`": `\`{ default: ${r.deadlines.default} }\` (in \`isolate()\`: ${AGENT_DEADLINES.default}, \`command\` and \`session_before_compact\` ${AGENT_DEADLINES.command})`,
    "`unresponsiveMs` / `loadUnresponsiveMs`": `${r.unresponsiveMs} / ${r.loadUnresponsiveMs}`,
    "`resourceLimits`": `old ${r.resourceLimits.maxOldGenerationSizeMb} MB, young ${r.resourceLimits.maxYoungGenerationSizeMb} MB, stack ${r.resourceLimits.stackSizeMb} MB`,
    "`maxMessageBytes`": mib(r.maxMessageBytes),
    "`maxPostsPerSecond`": `${r.maxPostsPerSecond}`,
    "`maxPausedMs`": minutes(r.maxPausedMs),
    "`maxRestarts` / `restartWindowMs`": `${r.maxRestarts} / ${minutes(r.restartWindowMs)}`,
    "`maxLongRestarts` / `longRestartWindowMs`": `${r.maxLongRestarts} / ${hours(r.longRestartWindowMs)}`,
    "`toolCallFailure`": `\`"${r.toolCallFailure}"\``,
    "`sandboxMemoryMb`": `${r.sandboxMemoryMb}`,
    "`transformCacheDir`": `\`${r.transformCacheDir === defaultTransformCacheDir() ? defaultTransformCacheDir().replace(tmpdir(), "<tmp>").replace(String(process.getuid!()), "<uid>") : r.transformCacheDir}\``,
    "`transformCacheMaxBytes`": mib(r.transformCacheMaxBytes),
    "`syncTimeoutMs` / `renderTimeoutMs`": `${r.syncTimeoutMs} / ${r.renderTimeoutMs}`,
    "`renderBudgetMs`": `${r.renderBudgetMs}`,
    "`terminalText`": `\`{ colors: ${r.terminalText.colors} }\``,
    "`transformBudget`": `\`{ fileCharacters: ${mi(r.transformBudget.fileCharacters!)}, characters: ${mi(r.transformBudget.characters!)}, ms: ${r.transformBudget.ms} }\``,
  };
  const missing = Object.entries(cells).filter(([option, cell]) => rows.get(option)?.d !== cell).map(([option, cell]) => `${option} default: ${cell} (README: ${rows.get(option)?.d})`);
  const meanings: Array<[string, string]> = [
    ["`deadlines`", `\`load\` (${seconds(DEFAULTS.deadlineMs)})`], // src/isolation/load.ts: deadlines.load, else this
    ["`resourceLimits`", `young above ${r.resourceLimits.maxYoungGenerationSizeMb} MB is refused`],
    ["`renderBudgetMs`", `at most ${LIMITS.renderLines} lines of at most ${LIMITS.renderCharsPerColumn} characters per column of the width asked (${renderLineChars(0)} at least, ${renderLineChars(Infinity)} at most)`],
    ["`transformBudget`", `per ${seconds(TRANSFORM_WINDOW_MS)} characters of source`],
    ["`transformBudget`", `the thread's ${TRANSFORM_HEAP_MB} MB heap`],
    ["`onLog`, `onExec`, `onDenied`", `at most ${LOG_LINES_PER_WINDOW} log lines (denials included) and ${EXEC_RECORDS_PER_WINDOW} exec records per hook per ${seconds(CALLBACK_WINDOW_MS)}`],
    ["`onNet`", `at most ${NET_RECORDS_PER_WINDOW} records per hook per ${seconds(CALLBACK_WINDOW_MS)}`],
  ];
  missing.push(...meanings.filter(([option, words]) => !rows.get(option)?.m.includes(words)).map(([option, words]) => `${option}: ${words}`));
  const phrases = [
    `a hang blocks its call after ${seconds(AGENT_DEADLINES.default)}`,
    `(${MAX_LINES} lines per ${seconds(WINDOW_MS)})`,
    `up to ${SESSION_MANAGER_METHODS.length} synchronous methods`,
    `at most ${ANNOTATE_MAX_CHARS} characters each`,
    `rotated past ${mib(AUDIT_DEFAULTS.maxBytes)} into ${AUDIT_DEFAULTS.files} files, ${AUDIT_DEFAULTS.rate} records a second after a burst of ${AUDIT_DEFAULTS.burst}`,
    `over \`maxMessageBytes\` (default ${mib(r.maxMessageBytes)})`,
    `a render over ${LIMITS.renderLines} lines or with a line over ${LIMITS.renderLineChars} characters`,
    `\`maxPausedMs\` (${minutes(r.maxPausedMs)}) in all`,
    `\`unresponsiveMs\` (default ${seconds(r.unresponsiveMs)}, ${seconds(r.loadUnresponsiveMs)} while loading)`,
    `\`maxRestarts\` (${r.maxRestarts}) times within \`restartWindowMs\` (${minutes(r.restartWindowMs)})`,
    `more than ${LIMITS.maxConcurrentCalls} bridge calls or ${LIMITS.maxQueuedPrompts} queued UI prompts at once`,
    `The first ${LIMITS.reportedViolations} are reported one by one; past ${LIMITS.maxViolations} the worker is ended`,
    `tested with ${pinned("install-pi.sh")}`,
    `oh-my-pi (${pinned("install-omp.sh")}, on Bun)`,
    `Claude Code ${pinned("install-claude.sh")}, Codex ${pinned("install-codex.sh")}, Gemini CLI ${pinned("install-gemini.sh")}`,
    `against opencode ${pinned("install-opencode.sh")}`,
    `Bun (CI: ${pinned("install-bun.sh")})`,
  ];
  missing.push(...phrases.filter((p) => !text.includes(p)));
  for (const [, depth] of text.matchAll(/nested deeper than (\d+) levels/g)) if (Number(depth) !== LIMITS.maxDepth) missing.push(`nested deeper than ${LIMITS.maxDepth} levels (README: ${depth})`);
  const rootEntries = [...text.matchAll(/more than ([\d ]+) entries/g)].map((m) => m[1]!);
  const spelt = MAX_ROOT_ENTRIES.toLocaleString("en").replaceAll(",", " ");
  if (rootEntries.length === 0 || rootEntries.some((n) => n !== spelt)) missing.push(`more than ${spelt} entries (README: ${rootEntries.join(", ") || "none"})`);
  const pins = new Set(["install-pi.sh", "install-omp.sh", "install-claude.sh", "install-codex.sh", "install-gemini.sh", "install-opencode.sh", "install-bun.sh"].map(pinned));
  for (const [version] of text.matchAll(/(?<![\w.])\d+\.\d+\.\d+(?![\w.])/g)) if (!pins.has(version)) missing.push(`a version no script pins: ${version}`);
  return missing;
}

describe("README: figures", () => {
  it("says each default, limit and pinned version as the code defines it (the resolved options, the constants, the install scripts)", () => {
    expect(resolveSandboxOptions({}).policy).toEqual(presets.confined);
    expect(AGENT_DEADLINES).toEqual({ default: AGENT_DEADLINES.default, command: AGENT_DEADLINES.command, session_before_compact: AGENT_DEADLINES.command });
    expect(figureMismatches(readme)).toEqual([]);
  });

  it("control: a README with one figure changed, in a table cell, in prose and in a version, fails the check, naming each", () => {
    const changed = readme.replace("| `maxPostsPerSecond` | 5000 |", "| `maxPostsPerSecond` | 500 |")
      .replace("rotated past 4 MiB", "rotated past 8 MiB").replace("tested with 0.73.1", "tested with 0.73.2");
    expect(figureMismatches(changed)).toEqual([
      "`maxPostsPerSecond` default: 5000 (README: 500)",
      expect.stringMatching(/^rotated past 4 MiB/),
      "tested with 0.73.1",
      "a version no script pins: 0.73.2",
    ]);
  });
});

/** The folders the Layout section names (`name/`) that src/ lacks, and src/'s rooms it does not name. */
function layoutMismatches(text: string): string[] {
  const named = new Set([...section("Layout and more documentation", text).matchAll(/`([a-z-]+)\/`/g)].map((m) => m[1]!));
  const src = new URL("../src/", import.meta.url);
  const rooms = readdirSync(src, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  const isFolder = (name: string) => name === "src" || existsSync(new URL(`../${name}/`, import.meta.url)) || existsSync(new URL(name, src)) || rooms.some((r) => existsSync(new URL(`${r}/${name}/`, src)));
  return [...rooms.filter((r) => !named.has(r)).map((r) => `not named: src/${r}/`), ...[...named].filter((n) => !isFolder(n)).map((n) => `no such folder: ${n}/`)];
}

describe("README: layout", () => {
  it("names every room of src/ in its Layout section, and no folder that does not exist", () => {
    expect(layoutMismatches(readme)).toEqual([]);
  });

  it("control: a Layout without `opencode/` and with a `plugins/` that does not exist fails the check, naming both", () => {
    expect(layoutMismatches(readme.replace("`opencode/`, ", "`plugins/`, "))).toEqual(["not named: src/opencode/", "no such folder: plugins/"]);
  });
});

/** A heading's anchor as GitHub makes it: lower case, punctuation but hyphens dropped, spaces to hyphens. */
const anchor = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, "").replaceAll(" ", "-");

/** The relative links of the README and docs/ (code left out) whose file, or whose heading, is not there. */
function brokenLinks(files: Record<string, string>): string[] {
  const root = new URL("../", import.meta.url);
  const headings = (file: string, text?: string) => [...(text ?? readFileSync(new URL(file, root), "utf8")).matchAll(/^#+ (.*)$/gm)].map((m) => anchor(m[1]!));
  const broken: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, hash] = target!.split("#") as [string, string | undefined];
      const resolved = path === "" ? file : new URL(path, new URL(file, root)).pathname.slice(root.pathname.length);
      if (path !== "" && !existsSync(new URL(resolved, root))) broken.push(`${file}: ${target}`);
      else if (hash && resolved.endsWith(".md") && !headings(resolved, resolved === file ? text : undefined).includes(hash)) broken.push(`${file}: ${target}`);
    }
  }
  return broken;
}

describe("README and docs/: links", () => {
  const files = Object.fromEntries(["README.md", ...readdirSync(new URL("../docs", import.meta.url)).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)]
    .map((f) => [f, readFileSync(new URL(`../${f}`, import.meta.url), "utf8")]));

  it("every relative link names a file that exists and, with an anchor, a heading of that file", () => {
    expect(Object.values(files).join("\n").match(/\]\((?![a-z]+:)[^)\s]+#[^)\s]+\)/g)!.length).toBeGreaterThan(20); // not a vacuous pass
    expect(brokenLinks(files)).toEqual([]);
  });

  it("control: a link to a missing file and one to a missing heading are each named", () => {
    const text = "See [cli](docs/cli.md#npm-start-the-demo), [gone](docs/gone.md) and [moved](docs/cli.md#no-such-heading); `[0](event)` is code.";
    expect(brokenLinks({ "README.md": text })).toEqual(["README.md: docs/gone.md", "README.md: docs/cli.md#no-such-heading"]);
  });
});
