/**
 * The agents whose examples the differential runs, and what a row of its table is: each agent's
 * install, its examples and how one is passed, which doc holds its tables, and what its runs show
 * by design (taken out of both runs before comparing).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { installBun, installOmp, installPi, installPiDir, ompAgent, piAgent, type Agent } from "../../test/support/pi-run.js";

export const OUTCOMES = ["identical", "refused", "refused by policy", "differs", "pi cannot load it", "oh-my-pi cannot load it"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface ExampleRow {
  /** The example's entry, relative to pi's `examples/extensions/`. */
  file: string;
  outcome: Outcome;
  /** For `refused`: the member or feature refused (the first); for `differs`: the first difference, short. */
  detail: string;
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

/**
 * The agents whose examples the differential runs (`--agent`): how each is installed, where its
 * examples are, how one is passed, which doc holds its tables. pi's are its `examples/extensions/`;
 * oh-my-pi 18.2.3's are its `examples/extensions/` (passed with `-e`) and its legacy
 * `examples/hooks/` (passed with `--hook`), named relative to its `examples/`.
 */
export type AgentName = "pi" | "oh-my-pi";
export interface ExampleAgent {
  /** The agent and version, as a table's label names it. */
  label: string;
  /** The doc (in docs/) its tables are in. */
  doc: string;
  /** The agent, installed (a no-op when the cache holds it), its package folder, and the folder its example names are relative to. */
  install(): { agent: Agent; pkg: string; examples: string };
  list(examples: string): string[];
  /** How an example is passed: `-e` (extensions), or `--hook` (hooks). */
  flag(file: string): "extensions" | "hooks";
  /**
   * What run B shows by design on this agent, for every example, taken out of B before comparing
   * (the doc's head says so): on a Bun host, `isolate`'s notice of what a Bun worker does not
   * enforce under `trusted` (src/runner/loader.ts, docs/runtimes.md), once per module; a result key
   * the agent ignores, dropped as it drops it (src/runner/runner.ts), once per module and key.
   */
  notice?: RegExp;
  /** The outcome when run A shows the agent did not load the example, and the stderr line that says so (oh-my-pi goes on without it). */
  cannotLoad: { outcome: Outcome; line?: RegExp };
  /**
   * Records whose place among the events depends on timing, compared as their own sequence
   * (`apart`) in both runs. oh-my-pi writes a `message_update` at once, every other event once each
   * extension's handler for it returned (src/session/agent-session.ts `#emitSessionEvent`), and
   * `isolate` subscribes to every event; a module's own stdout lines come from a Bun worker's
   * stream, which Bun does not capture (docs/runtimes.md), when Bun writes them.
   */
  apart?: (record: { type?: string; stdout?: string }) => boolean;
  /**
   * Within each step (from one command sent to the next), the records are compared in an order of
   * their own (sorted by content, ids and times aside), not as the agent wrote them: oh-my-pi
   * answers a `prompt` at once while it runs, runs extension handlers concurrently (its bundled
   * ones' UI requests land anywhere among them) and holds `agent_end` until the prompt unwinds.
   */
  unorderedSteps?: boolean;
  /** stderr lines that say how long the agent took (both runs' are left out). */
  timingLines?: RegExp;
  /** Files of the agent's or its runtime's own, named by process id or content hash (left out of both runs). */
  ignoredFiles?: RegExp;
  /** Keys whose value here the agent reads as the key's absence (left out where they have it, in both runs). */
  absent?: Readonly<Record<string, unknown>>;
  /**
   * The agent writes an in-process extension's own output to its stdout (the protocol stream), where
   * hookbox writes an isolated module's to the agent's stderr, never its stdout (src/extension/output.ts):
   * a module's lines are compared as stderr lines wherever each run wrote them (after the agent's own).
   */
  moduleOutputOnStdout?: boolean;
}
export const AGENTS: Readonly<Record<AgentName, ExampleAgent>> = {
  pi: {
    label: "pi 0.73.1", doc: "pi-examples.md",
    install: () => ({ agent: piAgent(installPi()), pkg: installPiDir(), examples: examplesDir(installPiDir()) }),
    list: listExamples,
    flag: () => "extensions",
    cannotLoad: { outcome: "pi cannot load it" },
  },
  "oh-my-pi": {
    label: "oh-my-pi 18.2.3", doc: "omp-examples.md",
    install: () => {
      const cli = installOmp();
      const pkg = join(dirname(cli), "..");
      return { agent: ompAgent(cli, installBun()), pkg, examples: join(pkg, "examples") };
    },
    list: (examples) => [
      ...listExamples(join(examples, "extensions")).map((f) => `extensions/${f}`),
      ...readdirSync(join(examples, "hooks")).filter((f) => f.endsWith(".ts")).sort().map((f) => `hooks/${f}`),
    ],
    flag: (file) => (file.startsWith("hooks/") ? "hooks" : "extensions"),
    // And its one warning for a result key oh-my-pi ignores in its process (dropped, as oh-my-pi drops it).
    notice: /^hookbox: [^:]+: (?:not enforced on this host's runtime \(Bun, worker mode\): |the result of its \w+ handler has the key "[^"]*", which oh-my-pi ignores in its process: dropped)/,
    cannotLoad: { outcome: "oh-my-pi cannot load it", line: /^Failed to load extension / },
    apart: (r) => r.type === "message_update" || typeof r.stdout === "string",
    unorderedSteps: true,
    // oh-my-pi's notice of a slow start (its src/main.ts), and the log path it names.
    timingLines: /^(?:Still starting after <duration>|  logs: <home>\/\.omp\/logs\/)/,
    // oh-my-pi's logs and daemon registry (named by its pid), its SQLite stores (binary, their pages
    // as timing left them), Bun's transpiler cache (named by content hash).
    // A message's `errorId` 0: no error class (oh-my-pi's AIError.is reads undefined as 0); its turn
    // recovery sets it on a finished message or not, as timing has it (seen on either run).
    absent: { errorId: 0 },
    ignoredFiles: /^home\/(?:\.omp\/(?:logs|run)\/|\.omp\/.*\.db(?:-wal|-shm)?$|\.bun\/install\/cache\/)/,

    moduleOutputOnStdout: true,
  },
};
