/**
 * The differential of pi's own example extensions (pi 0.73.1's `examples/extensions/`): each example
 * runs in pi at its pinned version, in `--mode rpc`, twice, through the same scripted session
 * (test/support/pi-rpc-session.mjs): (A) in pi's process (`-e example`), (B) through
 * `isolate([example], { policy: "trusted" })` (`-e isolated.ts`). Each run is headless in a network
 * namespace with only loopback against the fake model (test/support/pi-netns-run.mjs), in a fresh
 * project folder and HOME. The two runs are compared after normalizing ids, times, durations and
 * paths: the RPC event stream, the model's requests, stderr, the final state (get_state,
 * get_messages), the exit and the files of the project and HOME.
 *
 * Outcomes:
 * - `identical`: nothing differs;
 * - `refused`: the isolated run reports a member or feature refused by name ("… is refused by
 *   hookbox/extension: …", the adapter's wording: src/extension/, worker/extension-members.mjs);
 * - `differs`: anything else differs (the first difference is given);
 * - `pi cannot load it`: run A never answered (pi exits when an extension it is given does not load,
 *   e.g. an npm package the example imports is not installed): nothing to compare.
 *
 * `scripts/examples-table.ts` writes docs/pi-examples.md's table from it; test/extension-examples.test.ts
 * checks the table against it. No outcome is hand-written.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { presets, type PolicyOption } from "../src/policy/policy.js";
import { MODEL_PORT } from "../test/support/pi-rpc-session.mjs";
import { builtHookbox, installBun, installOmp, installPi, installPiDir, ompAgent, piAgent, piWorldIn, runPiRpc, type Agent, type PiRpcRun, type PiWorld } from "../test/support/pi-run.js";

export { importPi, type Pi } from "../test/support/pi-run.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

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
interface ExampleAgent {
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

// ---------------------------------------------------------------------------------------------
// The session and the two runs.

/** The session's prompt, and the tools the model calls for it (then each extension tool: pi-netns-run.mjs). */
export const PROMPT = "Clean up the build folder.";
export const CALLS = [
  { name: "bash", arguments: { command: "rm -rf build" } },
  { name: "read", arguments: { path: "README.md" } },
  { name: "write", arguments: { path: "notes.txt", content: "written by the model\n" } },
];

/**
 * The prompts sent after `PROMPT` to an example with an `input` handler (its source subscribes to
 * `input`): `inline-bash.ts` expands the `!{…}` (running `echo`) and notifies, `input-transform.ts`
 * rewrites the `?quick ` prompt, answers "ping" itself (handled: no turn) and lets the other
 * through. Only such examples get them: each is a turn of both runs.
 */
export const INPUT_PROMPTS = ["?quick What is in !{echo differential}?", "ping"];
/** Whether the example at `path` subscribes to `input` (then its session has INPUT_PROMPTS). */
export const subscribesToInput = (path: string) => /\.on\(\s*["']input["']/.test(readFileSync(path, "utf8"));

export type Isolation = "worker" | "process" | "sandbox";

/** A grant over `untrusted`, for the run's world (its project, HOME and agent folder are fresh per run). */
export type SandboxGrant = (world: PiWorld) => Exclude<PolicyOption, string>;

/** Changing the agent (a substitute effect: a built-in tool replaced, a prompt or result rewritten). */
const substitute = { effects: "substitute" } as const;
/** Changing the agent through its setters (`pi.setLabel`, `sendUserMessage`, `ctx.compact`, …): `policy.agent` "write" too. */
const setters = { effects: "substitute", agent: "write" } as const;
/** A tool that does the agent's own work in the project: reads and writes it, and (bash) starts a shell from /usr. */
const projectTools = (w: PiWorld) => ({ ...substitute, fsRead: [w.project, "/usr", "/bin"], fsWrite: [w.project], childProcess: true });
/** Its own model call (pi's `complete`), as pi's process makes it: the key, and the fake model's address (a real one: its provider's host:443). */
const modelCall = () => ({ modelRegistry: "all", network: { allow: [`127.0.0.1:${MODEL_PORT}`] } }) as const satisfies Exclude<PolicyOption, string>;

/**
 * What each example needs beyond `untrusted` in sandbox isolation (`--isolation sandbox`), merged
 * over the `untrusted` preset, the narrowest grant that runs it as in pi's process: named programs
 * with their arguments, named folders, the one effect class. An example not listed needs nothing
 * (or is refused by name whatever its policy; handoff.ts and qna.ts call the model from a custom()
 * component, whose factory never runs in sandbox isolation). Worker and process isolation use
 * `trusted` for every example (a person wrapping an extension they trust).
 */
export const SANDBOX_NEEDS: Readonly<Record<string, SandboxGrant>> = {
  // git in the project, with the arguments it passes (its commit message is "[pi] " and a line).
  "auto-commit-on-exit.ts": (w) => ({ exec: { allow: [{ command: "git", args: ["status", "--porcelain", "add", "-A", "commit", "-m", /\[pi\] .*/] }] }, fsWrite: [w.project] }),
  // Its bash tool runs the model's commands in its own sandbox; its shell sources ~/.profile, at the
  // same path there (the sandbox's own empty home is mounted at HOME's path).
  "bash-spawn-hook.ts": projectTools,
  "bookmark.ts": () => setters,
  "built-in-tool-renderer.ts": projectTools,
  // Its rules folder, read if there.
  "claude-rules.ts": (w) => ({ fsRead: [join(w.project, ".claude")] }),
  "custom-compaction.ts": modelCall,
  // Where it looks for its WAD (the project, ~/doom1.wad, ~/.doom), and the WAD a command's argument names (in the project).
  "doom-overlay/index.ts": (w) => ({ fsRead: [w.project, join(w.home, "doom1.wad"), join(w.home, ".doom")] }),
  "dynamic-resources/index.ts": () => substitute,
  "dynamic-tools.ts": () => substitute,
  // The file it watches (bound when it exists: the sandbox's /tmp is its own). Clearing it after a
  // trigger needs policy.fsWrite of it, which fails the load while the file does not exist (a write bind).
  "file-trigger.ts": () => ({ fsRead: ["/tmp/agent-trigger.txt"] }),
  "git-checkpoint.ts": (w) => ({ exec: { allow: [{ command: "git", args: ["stash", "create", "apply", /[0-9a-f]{40}/] }] }, fsWrite: [w.project] }),
  "github-issue-autocomplete.ts": (w) => ({
    exec: { allow: [
      { command: "git", args: ["remote", "-v"] },
      { command: "gh", args: ["issue", "list", "--repo", /[\w.-]+\/[\w.-]+/, "--state", "open", "--limit", /\d+/, "--json", "number,title,state"] },
    ] },
    fsRead: [w.project],
  }),
  // The session's `!{echo differential}` (INPUT_PROMPTS), run by bash in the project (pi.exec's
  // working directory), and the prompt it rewrites.
  "inline-bash.ts": (w) => ({ ...substitute, exec: { allow: [{ command: "bash", args: ["-c", "echo differential"] }] }, fsRead: [w.project] }),
  // The `?quick ` prompt it rewrites (INPUT_PROMPTS).
  "input-transform.ts": () => substitute,
  "minimal-mode.ts": projectTools,
  "model-status.ts": () => ({ terminal: "raw" }),
  "notify.ts": () => ({ terminal: "raw" }),
  "plan-mode/index.ts": () => setters,
  // Its /pirate rewrites the system prompt of the turns after it (before_agent_start's systemPrompt).
  "pirate.ts": () => substitute,
  // pi's agent folder (PI_CODING_AGENT_DIR: the sandbox's HOME is its own) and the project's .pi, where
  // its presets are; applying one sets the tools, model and thinking level.
  "preset.ts": (w) => ({ ...setters, env: ["PI_CODING_AGENT_DIR"], fsRead: [w.agentDir, join(w.project, ".pi")] }),
  "prompt-customizer.ts": () => substitute,
  // Its log in the project's .pi (process.cwd(): the project, bound).
  "provider-payload.ts": (w) => ({ fsWrite: [w.project] }),
  "send-user-message.ts": () => setters,
  "session-name.ts": () => setters,
  "ssh.ts": projectTools,
  "structured-output.ts": () => substitute,
  "summarize.ts": modelCall,
  "tic-tac-toe.ts": () => substitute,
  // Its read tool, and its log in pi's agent folder.
  "tool-override.ts": (w) => ({ ...substitute, env: ["PI_CODING_AGENT_DIR"], fsRead: [w.project, w.agentDir], fsWrite: [w.agentDir] }),
  "trigger-compact.ts": () => setters,
  // oh-my-pi's examples (named relative to its examples/): the same grants as pi's namesakes ("[omp] " is its commit prefix).
  "extensions/chalk-logger.ts": () => ({ terminal: "raw" }),
  "hooks/auto-commit-on-exit.ts": (w) => ({ exec: { allow: [{ command: "git", args: ["status", "--porcelain", "add", "-A", "commit", "-m", /\[omp\] .*/] }] }, fsWrite: [w.project] }),
  "hooks/file-trigger.ts": () => ({ fsRead: ["/tmp/agent-trigger.txt"] }),
  "hooks/git-checkpoint.ts": (w) => ({ exec: { allow: [{ command: "git", args: ["stash", "create", "apply", /[0-9a-f]{40}/] }] }, fsWrite: [w.project] }),
};

/** What run B isolates: the options `isolate` gets for `file` in `isolation`, in `world` (written into isolated.ts by `optionsSource`). */
export function isolateOptions(file: string, isolation: Isolation | undefined, world: PiWorld, grant = SANDBOX_NEEDS[file]): Record<string, unknown> {
  if (isolation === "sandbox") return { isolation, policy: { ...presets.untrusted, ...grant?.(world) } };
  return { ...(isolation ? { isolation } : {}), policy: "trusted" };
}

/** `value` as JavaScript source: JSON, but a RegExp (an exec rule's argument) as its literal. */
export function optionsSource(value: unknown): string {
  const regexps: RegExp[] = [];
  const json = JSON.stringify(value, (_key, v: unknown) => (v instanceof RegExp ? `\u0000re${regexps.push(v) - 1}` : v));
  return json.replace(/"\\u0000re(\d+)"/g, (_m, i: string) => String(regexps[Number(i)]));
}

export interface RunOptions {
  /** Whose examples (pi's when not given). */
  agent?: AgentName;
  /** B's isolation; `isolate`'s default when not given. */
  isolation?: Isolation;
  /** Change B's module: B isolates a copy of the example with this applied to its source (the control). */
  changeB?: (source: string) => string;
  /** Sandbox isolation: the grant over `untrusted` instead of the example's `SANDBOX_NEEDS` (the control). */
  grant?: SandboxGrant;
  /** Set on the second run of an example whose isolated run timed out (it runs once more, not again). */
  retried?: boolean;
  /** hookbox as built for this differential (`buildHookbox()`; built when not given): one build for every run of it. */
  hookbox?: string;
  /** A folder to write each run's observed (normalized) outcome to, as `<example>.A.json` / `.B.json`, and the raw stderr. */
  dump?: string;
}

interface Side { run: PiRpcRun; files: Record<string, string>; world: PiWorld; extension: string }

/** A fresh world for one run: the project has a README.md and a build/ folder for the model's calls. */
function freshWorld(agent: Agent): { root: string; world: PiWorld } {
  const root = mkdtempSync(join(tmpdir(), "hookbox-differential-"));
  const world = piWorldIn(root, agent);
  writeFileSync(join(world.project, "README.md"), "# project\n\nA project for pi's examples.\n");
  mkdirSync(join(world.project, "build"));
  writeFileSync(join(world.project, "build", "keep.txt"), "built\n");
  return { root, world };
}

/** Every file under `dir` (relative path → its text, cut to 4000 characters; a folder is "<dir>"). */
function filesOf(dir: string, prefix: string, out: Record<string, string> = {}): Record<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    const key = `${prefix}/${entry.name}`;
    if (entry.isDirectory()) { out[key] = "<dir>"; filesOf(path, key, out); continue; }
    if (!entry.isFile()) { out[key] = "<other>"; continue; }
    out[key] = statSync(path).size > 65_536 ? `<${statSync(path).size} bytes>` : readFileSync(path, "utf8").slice(0, 4000);
  }
  return out;
}

/** hookbox as the package ships it, for the sources as they are now (test/support/pi-run.ts): what run B's isolated.ts imports. */
export const buildHookbox = () => builtHookbox("differential", (line) => process.stderr.write(`${line}\n`));

async function runSide(agent: Agent, example: string, isolated: boolean, options: RunOptions & { hookbox: string }, file: string): Promise<Side> {
  const { root, world } = freshWorld(agent);
  try {
    let extension = example;
    if (isolated) {
      let module = example;
      // As a user has it: hookbox installed above isolated.ts, which has a folder of its own (as the example has).
      mkdirSync(join(root, "node_modules"));
      symlinkSync(options.hookbox, join(root, "node_modules", "hookbox"));
      if (options.changeB) {
        // A changed copy in the run's own folder (never in pi's), where pi's packages resolve as from the example.
        const scope = join(dirname(agent.cli), "..", "..");
        symlinkSync(scope, join(root, "node_modules", basename(scope)));
        mkdirSync(join(root, "changed"));
        module = join(root, "changed", basename(example));
        writeFileSync(module, options.changeB(readFileSync(example, "utf8")));
      }
      // Named as the example is (pi names an extension's commands' source after its file).
      mkdirSync(join(root, "extension"));
      extension = join(root, "extension", basename(example));
      writeFileSync(extension, `import { isolate } from "hookbox/extension";\n`
        + `export default isolate([${JSON.stringify(module)}], ${optionsSource(isolateOptions(file, options.isolation, world, options.grant ?? SANDBOX_NEEDS[file]))});\n`);
    }
    const passed = AGENTS[options.agent ?? "pi"].flag(file);
    const inputs = subscribesToInput(example) ? INPUT_PROMPTS : undefined;
    const run = await runPiRpc(agent.cli, world, { prompt: PROMPT, inputs, calls: CALLS, extensions: [], [passed]: [extension] }, agent);
    const files = { ...filesOf(world.project, "project"), ...filesOf(world.home, "home") };
    return { run, files, world, extension };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Normalizing a run.

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g;
const CLOCK = /\b\d{1,2}:\d{2}:\d{2}(?:\s?[AP]M)?\b/g;
const DURATION = /\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds?)\b/g;
/** A time in milliseconds since the epoch, written into text (`bookmark-${Date.now()}`), as a number value is (`v > 1e12`). */
const EPOCH_MS = /\b\d{13}\b/g;
/** Keys whose value is an id (an ordinal keeps which ids are the same). */
const ID_KEY = /^(?:id|parentId|sessionId|entryId|firstKeptEntryId|leafId|fromId|targetId)$/;
const TIME_KEY = /^(?:timestamp|created|createdAt|updatedAt|elapsedMs|durationMs|duration|wallTimeMs|ttft)$/;

/** A normalizer for one run: its paths (longest first) replaced by names, ids by ordinals, times and durations by placeholders. */
function normalizer(paths: Array<[string, string]>, absent: Readonly<Record<string, unknown>> = {}) {
  const sorted = [...paths].filter(([from]) => from.length > 1).sort(([a], [b]) => b.length - a.length);
  const ids = new Map<string, string>();
  const idOf = (v: string) => {
    if (!ids.has(v)) ids.set(v, `<id${ids.size + 1}>`);
    return ids.get(v)!;
  };
  const text = (s: string): string => {
    for (const [from, to] of sorted) s = s.split(from).join(to);
    return s.replace(UUID, (m) => idOf(m)).replace(ISO_DATE, "<date>").replace(CLOCK, "<clock>").replace(DURATION, "<duration>").replace(EPOCH_MS, "<time>");
  };
  const value = (v: unknown, key = ""): unknown => {
    if (typeof v === "string") return ID_KEY.test(key) ? idOf(v) : text(v);
    if (typeof v === "number") return TIME_KEY.test(key) || (v > 1e12 && v < 1e13) ? "<time>" : v;
    if (Array.isArray(v)) return v.map((x) => value(x));
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.keys(v).sort().filter((k) => !(Object.hasOwn(absent, k) && Object.is(absent[k], (v as Record<string, unknown>)[k])))
        .map((k) => [k, value((v as Record<string, unknown>)[k], k)]));
    }
    return v;
  };
  return { text, value };
}

export interface Observed {
  events: unknown[];
  /** The records whose place depends on timing, apart from the events (ExampleAgent's `apart`). */
  apart: unknown[];
  requests: unknown[];
  stderr: string[];
  state: unknown[];
  exit: unknown;
  files: Record<string, string>;
}

const STATE_COMMANDS = new Set(["get_state", "get_messages"]);

/**
 * UI requests an example makes from a timer, not from an event: how many a run has depends on how
 * long each step took, in either run. They are taken out of both streams before comparing (the
 * table's head says which). Listed by hand, from the example's source.
 */
export const TIMER_DRIVEN: Readonly<Record<string, { method: string; why: string }>> = {
  "titlebar-spinner.ts": { method: "setTitle", why: "a spinner frame every 80 ms while the agent works" },
};

/**
 * A streamed assistant message's snapshots without what depends on timing: pi emits the message
 * object it is still filling, so what `message_start` and each `message_update` carry depends on how
 * far the stream got when pi wrote them (an extension's awaited handler shifts it). Kept: each
 * update's kind and delta; `message_end` and `turn_end` carry the whole message.
 */
function withoutSnapshots(record: unknown): unknown {
  const r = record as { type?: string; message?: { role?: string }; assistantMessageEvent?: { type?: string; delta?: unknown; contentIndex?: unknown } };
  if (r?.type === "message_update") {
    const { type, delta, contentIndex } = r.assistantMessageEvent ?? {};
    return { type: r.type, assistantMessageEvent: { type, delta, contentIndex } };
  }
  if (r?.type === "message_start" && r.message?.role === "assistant") return { type: r.type, message: { role: "assistant" } };
  return record;
}

/**
 * `records` with each step's (from one `sent` marker to the next) sorted by content, ids and times
 * aside (ExampleAgent's `unorderedSteps`); the records `apart` keep their order.
 */
function unorderedSteps(records: unknown[], apart: (r: unknown) => boolean, paths: Array<[string, string]>): unknown[] {
  const key = (r: unknown) => JSON.stringify(normalizer(paths).value(withoutSnapshots(r))).replace(/<id\d+>/g, "<id>");
  const out: unknown[] = [];
  let step: Array<{ r: unknown; k: string }> = [];
  const flush = () => { out.push(...step.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0)).map((s) => s.r)); step = []; };
  for (const r of records) {
    if ((r as { sent?: unknown }).sent !== undefined) { flush(); out.push(r); continue; }
    if (apart(r)) out.push(r);
    else step.push({ r, k: key(r) });
  }
  flush();
  return out;
}

/** One run as compared: normalized, the state responses apart from the events. */
function observe(side: Side, file: string, example: string, examples: string, piDir: string, hookbox: string, agent: ExampleAgent, isolated: boolean): Observed {
  const notice = isolated ? agent.notice : undefined;
  const paths: Array<[string, string]> = [
    [side.extension, "<extension>"], [example, "<extension>"],
    // The extension's folder (pi's baseDir for what it registers): the example's, or isolated.ts's.
    [dirname(side.extension), "<extension folder>"], [dirname(example), "<extension folder>"], [examples, "<examples>"], [side.world.project, "<project>"],
    [side.world.home, "<home>"], [join(side.world.home, ".."), "<root>"], [piDir, "<pi>"], [hookbox, "<hookbox>"], [ROOT.replace(/\/$/, ""), "<hookbox>"],
  ];
  const { value, text } = normalizer(paths, agent.absent);
  const events: unknown[] = [];
  const state: unknown[] = [];
  const apart: unknown[] = [];
  const timer = TIMER_DRIVEN[file]?.method;
  let records = side.run.transcript.filter((record) => {
    const r = record as { type?: string; method?: string; message?: string };
    if (timer !== undefined && r.type === "extension_ui_request" && r.method === timer) return false;
    return !(notice && r.type === "extension_ui_request" && r.method === "notify" && notice.test(r.message ?? ""));
  });
  if (agent.unorderedSteps) records = unorderedSteps(records, (r) => agent.apart?.(r as never) ?? false, paths);
  const output: string[] = [];
  for (const record of records) {
    const r = record as { type?: string; command?: string; method?: string; stdout?: string };
    if (agent.moduleOutputOnStdout && typeof r.stdout === "string") { output.push(text(r.stdout)); continue; }
    (r.type === "response" && STATE_COMMANDS.has(r.command ?? "") ? state : agent.apart?.(r) ? apart : events).push(value(withoutSnapshots(record)));
  }

  return {
    events, state, apart,
    requests: side.run.requests.map((r) => value(r)),
    stderr: [...text(side.run.stderr).split("\n").filter((l) => l.trim() !== "" && !agent.timingLines?.test(l)), ...output],
    exit: { code: side.run.code, signal: side.run.signal },
    files: value(Object.fromEntries(Object.entries(side.files).map(([k, v]) => [text(k), v]).filter(([k]) => !agent.ignoredFiles?.test(k!)))) as Record<string, string>,
  };
}

// ---------------------------------------------------------------------------------------------
// Comparing and classifying.

/** The first place `a` and `b` differ (a path into them), with both values there; undefined when equal. */
export function firstDifference(a: unknown, b: unknown, path = ""): { path: string; a: unknown; b: unknown } | undefined {
  if (Object.is(a, b)) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length || i >= b.length) return { path: `${path}[${i}]`, a: a[i], b: b[i] };
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  return { path, a, b };
}

const short = (v: unknown, n = 90) => {
  const s = v === undefined ? "(nothing)" : typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

/** What an event is, for a difference's place: its type, and for a UI request its method. */
function eventName(e: unknown): string {
  const r = e as { type?: string; method?: string; sent?: { type?: string; message?: string }; command?: string } | undefined;
  if (!r) return "";
  if (r.sent) return `sent ${r.sent.type}${r.sent.message ? ` ${r.sent.message}` : ""}`;
  return [r.type, r.method ?? r.command].filter(Boolean).join(" ");
}

/** The first difference of two observed runs, in a sentence ("" when none). */
export function describeDifference(a: Observed, b: Observed): string {
  for (const section of ["events", "apart", "requests", "stderr", "state", "exit", "files"] as const) {
    const d = firstDifference(a[section], b[section], section);
    if (!d) continue;
    const index = /^\w+\[(\d+)\]/.exec(d.path)?.[1];
    let where = d.path;
    if (section === "events" && index !== undefined) {
      const ea = a.events[Number(index)], eb = b.events[Number(index)];
      // Two different events: both, whole (short).
      if (eventName(ea) !== eventName(eb)) return `event ${index}: in-process ${short(ea)}, isolated ${short(eb)}`;
      where = `event ${index} (${eventName(ea)})${d.path.slice(`events[${index}]`.length)}`;
    } else if (section === "requests" && index !== undefined) {
      where = `model request ${index}${d.path.slice(`requests[${index}]`.length)}`;
    } else if (section === "stderr" && index !== undefined) {
      where = `stderr line ${index}`;
    }
    return `${where}: in-process ${short(d.a)}, isolated ${short(d.b)}`;
  }
  return "";
}

/** The refusal hookbox reported in the isolated run (the adapter's wording), as the member it names. */
export function refusalIn(observed: Observed): string | undefined {
  const all = [JSON.stringify(observed.events), JSON.stringify(observed.stderr)].join("\n").replace(/\\"/g, "\"");
  const member = /(pi\.on\("[^"]*"\)|pi\.\w+\("[^"]*"\)(?: with a \w+| replacing [^,]*,?)?|pi\.\w+'s \w+|pi\.\w+|ctx(?:\.ui)?\.\w+(?:'s [\w.]+| with a component factory)?) is refused by hookbox\/extension/.exec(all);
  if (member) return member[1]!.replace(/,$/, "");
  // A module that cannot load where it runs, the reason named (src/isolation/load.ts): a package for Bun only, on Node.
  const bunOnly = /the hook imports ("[^"]+"), a package for Bun only: [^"]*?in (\w+) isolation the hook runs on Node/.exec(all);
  if (bunOnly) return `${bunOnly[1]} (a package for Bun only) on Node in ${bunOnly[2]} isolation`;
  const late = /a (tool|command|flag|shortcut) registered after load \("([^"]*)"\) is refused by hookbox\/extension/.exec(all);
  if (late) return `a ${late[1]} registered after load ("${late[2]}")`;
  const other = /([^"\\:;]{0,80}) is refused by hookbox\/extension/.exec(all);
  return other ? other[1]!.trim() : undefined;
}

/**
 * What the isolated module's policy refused in the isolated run (the sandbox table: what the example
 * needs beyond `untrusted`), as the policy field and what it refused; undefined when nothing was.
 */
export function policyRefusalIn(observed: Observed, difference: string): string | undefined {
  const all = [JSON.stringify(observed.events), JSON.stringify(observed.stderr)].join("\n").replace(/\\"/g, "\"");
  // What was refused, and what it carried (pi.registerTool("x") with a promptSnippet (…), …).
  const effect = /(?:called|set) (.{1,80}?)(?: with an? (\w+) \([^)]*\))?(?:,| during) (?:[^"]{0,160}?)which its policy\.effects "\w+" does not grant/.exec(all);
  if (effect) return `policy.effects (${effect[1]}${effect[2] ? ` with a ${effect[2]}` : ""})`;
  const fs = /Access to this API has been restricted: FileSystem(Read|Write)/.exec(all);
  if (fs) return `policy.fs${fs[1]} (a file outside its grants)`;
  // A denial the module caught or rethrew bare, named once on stderr with its grant (worker/access.mjs).
  const denied = /FileSystem(Read|Write) of [^"]{1,200}? was denied by the module's policy \(ERR_ACCESS_DENIED\)\. The field that grants it: policy\.fs(?:Read|Write)/.exec(all);
  if (denied) return `policy.fs${denied[1]} (a file outside its grants)`;
  // Its output, prefixed with its name and gated (policy.terminal "text"), where pi prints it as written.
  if (difference.startsWith("stderr") && observed.stderr.some((line) => line.startsWith("[<extension>] "))) return "policy.terminal (its output prefixed and gated)";
  const field = /(pi\.\w+|ctx(?:\.\w+)+)[^"]{0,80}?(?:refused|not allowed)[^"]{0,80}?\b(policy\.\w+)/.exec(all);
  if (field) return `${field[2]} (${field[1]})`;
  const exec = /pi\.exec\("([^"]{0,40})[^)]*\) refused by its policy/.exec(all);
  return exec ? `policy.exec (pi.exec("${exec[1]}"))` : undefined;
}

/**
 * Run A (the example in the agent's process) does not depend on B (its isolation, grant or changed
 * module): one per agent and example in this process, shared by the tables it builds (a test's
 * worker and sandbox tables, their controls). An example run once more (`retried`) runs A afresh.
 */
const inProcessRuns = new Map<string, Promise<Side>>();
function inProcessRun(agent: AgentName, file: string, fresh: boolean, run: () => Promise<Side>): Promise<Side> {
  const key = `${agent}\u0000${file}`;
  if (fresh || !inProcessRuns.has(key)) {
    const started = run();
    inProcessRuns.set(key, started);
    started.catch(() => inProcessRuns.delete(key));
  }
  return inProcessRuns.get(key)!;
}

/** Runs `file` (relative to pi's examples) in process and isolated, and classifies it. */
export async function classifyExample(file: string, options: RunOptions = {}): Promise<ExampleRow & { ms: number }> {
  const started = performance.now();
  const { agent, pkg: piDir, examples } = AGENTS[options.agent ?? "pi"].install();
  const example = join(examples, file);
  const sides = { ...options, hookbox: options.hookbox ?? buildHookbox() };
  const a = await inProcessRun(options.agent ?? "pi", file, options.retried === true, () => runSide(agent, example, false, sides, file));
  const b = await runSide(agent, example, true, sides, file);
  const which = AGENTS[options.agent ?? "pi"];
  const [oa, ob] = [observe(a, file, example, examples, piDir, sides.hookbox, which, false), observe(b, file, example, examples, piDir, sides.hookbox, which, true)];
  const ms = Math.round(performance.now() - started);
  if (options.dump) {
    mkdirSync(options.dump, { recursive: true });
    const name = file.replace(/\//g, "_");
    writeFileSync(join(options.dump, `${name}.A.json`), JSON.stringify(oa, null, 1));
    writeFileSync(join(options.dump, `${name}.B.json`), JSON.stringify(ob, null, 1));
    writeFileSync(join(options.dump, `${name}.timings.json`), JSON.stringify({ A: [a.run.elapsedMs, a.run.timings], B: [b.run.elapsedMs, b.run.timings] }));
  }
  const answered = (o: Observed) => o.events.some((e) => (e as { type?: string }).type === "response");
  if (!answered(oa)) return { file, outcome: which.cannotLoad.outcome, detail: oa.stderr[0]?.slice(0, 160) ?? `pi exited (${JSON.stringify(oa.exit)})`, ms };
  const notLoaded = which.cannotLoad.line && oa.stderr.find((line) => which.cannotLoad.line!.test(line));
  if (notLoaded) return { file, outcome: which.cannotLoad.outcome, detail: notLoaded.slice(0, 160), ms };
  const difference = describeDifference(oa, ob);
  // A module that did not load or answer in time on a busy machine says nothing of isolation: once more.
  if (difference !== "" && !options.retried && /\((?:unresponsive|timeout)\)/.test(JSON.stringify(ob.events))) {
    process.stderr.write(`examples-table: ${file}: the isolated run timed out (${difference.slice(0, 120)}); running it once more\n`);
    return classifyExample(file, { ...options, retried: true });
  }
  if (difference === "") return { file, outcome: "identical", detail: "", ms };
  const refused = refusalIn(ob);
  if (refused !== undefined) return { file, outcome: "refused", detail: refused, ms };
  const byPolicy = policyRefusalIn(ob, difference);
  if (byPolicy !== undefined) return { file, outcome: "refused by policy", detail: byPolicy, ms };
  return { file, outcome: "differs", detail: difference, ms };
}

/** Every example (or `only`), at most `parallel` at a time; rows in the examples' order. */
export async function classifyAll(options: RunOptions & { only?: string[]; parallel?: number; onRow?: (row: ExampleRow & { ms: number }) => void } = {}): Promise<Array<ExampleRow & { ms: number }>> {
  const which = AGENTS[options.agent ?? "pi"];
  const files = which.list(which.install().examples).filter((f) => !options.only || options.only.includes(f));
  const hookbox = options.hookbox ?? buildHookbox(); // once: every run of the differential loads the same build
  const rows: Array<ExampleRow & { ms: number }> = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      rows[i] = await classifyExample(files[i]!, { ...options, hookbox }).catch((err: Error) => ({ file: files[i]!, outcome: "differs" as const, detail: `the run failed: ${err.message.slice(0, 200)}`, ms: 0 }));
      options.onRow?.(rows[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.parallel ?? 2) }, worker));
  return rows;
}

// ---------------------------------------------------------------------------------------------
// The table in docs/pi-examples.md, between two markers.

export const TABLE_START = "<!-- examples-table:start (generated by npm run examples-table; do not edit) -->";
export const TABLE_END = "<!-- examples-table:end -->";
/** The markers of the table for `isolation`: the default's, or the sandbox table's. */
export function markers(isolation: Isolation | undefined): [string, string] {
  if (isolation === undefined) return [TABLE_START, TABLE_END];
  return [`<!-- examples-table-${isolation}:start (generated by npm run examples-table -- --isolation ${isolation}; do not edit) -->`, `<!-- examples-table-${isolation}:end -->`];
}

const cell = (text: string) => text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/`/g, "'").replace(/\n/g, " ");

/** The line above a table: which agent, how B isolated the examples. */
export const tableLabel = (isolation: Isolation | undefined, agent: AgentName = "pi") => isolation === "sandbox"
  ? `${AGENTS[agent].label}, in-process against \`isolate([example], { isolation: "sandbox", policy })\` (the policy each example needs, scripts/pi-examples.ts)`
  : `${AGENTS[agent].label}, in-process against \`isolate([example], { policy: "trusted" })\`${isolation ? ` in ${isolation} isolation` : ""}`;

const rowLine = (r: ExampleRow) => `| \`${r.file}\` | ${r.outcome} | ${cell(r.detail)} |`;
const ROW = /^\| `([^`]+)` \| ([^|]+?) \|/;
// An agent's "cannot load it" is counted in its own table only (where it occurs).
const countsLine = (label: string, outcomes: string[]) =>
  `${label}: ${outcomes.length} examples: ${OUTCOMES.filter((o) => !o.endsWith("cannot load it") || label.startsWith(o.replace(/ cannot load it$/, " ")))
    .map((o) => `${outcomes.filter((x) => x === o).length} ${o}`).join(", ")}.`;

/** The examples and outcomes of a generated table. */
export function outcomesOf(table: string): Array<Pick<ExampleRow, "file" | "outcome">> {
  return table.split("\n").flatMap((line) => {
    const m = ROW.exec(line);
    return m ? [{ file: m[1]!, outcome: m[2]! as Outcome }] : [];
  });
}

/** `table` (generated) with the rows of `rows`' examples rerun (`--only`), the others as they were, the counts recounted. */
export function withRows(table: string, rows: ExampleRow[], label: string): string {
  const fresh = new Map(rows.map((r) => [r.file, rowLine(r)]));
  const lines = table.split("\n").map((line) => fresh.get(ROW.exec(line)?.[1] ?? "") ?? line);
  const outcomes = lines.flatMap((line) => ROW.exec(line)?.[2] ?? []);
  return lines.map((line) => (line.startsWith(`${label}: `) ? countsLine(label, outcomes) : line)).join("\n");
}

/** The generated part of the doc: counts, one row per example. */
export function renderTable(rows: ExampleRow[], label: string, isolation?: Isolation): string {
  const [start, end] = markers(isolation);
  return [
    start,
    "",
    countsLine(label, rows.map((r) => r.outcome)),
    "",
    "| example | outcome | refused member, or first difference |",
    "| --- | --- | --- |",
    ...rows.map(rowLine),
    "",
    end,
  ].join("\n");
}

/** The generated part of `doc` (markers included), or undefined when it has none. */
export function tableOf(doc: string, isolation?: Isolation): string | undefined {
  const [startMarker, endMarker] = markers(isolation);
  const start = doc.indexOf(startMarker);
  const end = doc.indexOf(endMarker);
  return start < 0 || end < start ? undefined : doc.slice(start, end + endMarker.length);
}

/** `doc` with its generated part replaced by `table`. */
export function withTable(doc: string, table: string, isolation?: Isolation): string {
  const current = tableOf(doc, isolation);
  if (current === undefined) throw new Error(`the doc has no ${markers(isolation).join(" … ")} markers`);
  return doc.replace(current, () => table);
}
