/**
 * The host the CLI runs hooks in: real workers through `loadHooks`, a real `HookRunner` with a
 * read-only session stand-in and no UI, and collectors for what hooks report and send.
 */
import { resolve } from "node:path";
import type { HookError, HookErrorCode } from "../contract/errors.js";
import { loadExtensionModules, loadHooks, type LoadOptions } from "../runner/loader.js";
import { inferAgent, screen, type AgentName } from "./agent.js";
import { HookRunner } from "../runner/runner.js";
import { createModelRegistry, createSessionManager } from "../bridge/host-setup.js";
import type { SandboxOptions } from "../options/options.js";
import type { HookMessage } from "../contract/types.js";
import { scriptedUI, type Prompt, type ScriptedAnswers } from "./ui.js";

export interface HostOptions {
  cwd?: string;
  /** Deadline of each handler (`deadlines.default`), ms. */
  timeout?: number;
  /** Where each hook runs: a worker thread (default) or a child process. */
  isolation?: SandboxOptions["isolation"];
  /** The hooks' policy (`--policy`, `--allow-*`, `--env`); undefined: the API's default. */
  policy?: SandboxOptions["policy"];
  /** Scripted UI answers; when given, `ctx.hasUI` is true. */
  ui?: ScriptedAnswers;
  /** Exit 1 when any HookError occurred. */
  failOnError?: boolean;
  /** What the hooks are written for (`--agent`); undefined: inferred (src/cli/agent.ts). */
  agent?: AgentName;
}

/** A `pi.logger` line (or the hook's console / stdout / stderr). */
export interface LogLine { hookPath: string; level: string; line: string }

export interface CliHost {
  cwd: string;
  /** What the hooks are written for: `--agent`, or inferred. */
  agent: AgentName;
  /** Why the agent was inferred (`--agent` not given, a module used pi's own members or events). */
  inferred?: string;
  runner: HookRunner;
  /** Hooks that failed to load, in the order given. */
  loadErrors: Array<{ path: string; error: string; code: HookErrorCode }>;
  /** Messages hooks sent with `pi.sendMessage`, in order. */
  messages: HookMessage[];
  /** Prompts and notifications the hooks showed, with the scripted answers; empty without `--ui` flags. */
  prompts: Prompt[];
  /** Log lines of the hooks, in order. */
  logs: LogLine[];
  /** HookErrors reported since the last call. */
  takeErrors(): HookError[];
  dispose(): Promise<void>;
}

/** Load `paths` and build an initialized runner over the hooks that loaded. */
export async function openHost(paths: string[], options: HostOptions = {}): Promise<CliHost> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const load: LoadOptions = {};
  if (options.timeout !== undefined) load.deadlines = { default: options.timeout };
  if (options.isolation !== undefined) load.isolation = options.isolation;
  if (options.policy !== undefined) load.policy = options.policy;
  const logs: LogLine[] = [];
  load.onLog = (hookPath, level, line) => { logs.push({ hookPath, level, line }); };
  // Modules written for an agent (or maybe: --agent not given) get the agent's registrations.
  const loaded = await (options.agent === "hooks" ? loadHooks : loadExtensionModules)(paths, cwd, load);
  const inferred = options.agent === undefined ? inferAgent(loaded.hooks) : undefined;
  const agent = options.agent ?? inferred?.agent ?? "hooks";
  // What the agent itself would refuse to run fails to load here too, with the agent's words.
  const { kept: hooks, refused } = agent === "hooks" ? { kept: loaded.hooks, refused: [] } : await screen(loaded.hooks, agent);
  const loadErrors = [...loaded.errors, ...refused].map((e) => ({ ...e, error: loadHint(e.error) }));
  const runner = new HookRunner(hooks, cwd, createSessionManager({ cwd, sessionId: "hookbox-cli" }), createModelRegistry(), { onLog: load.onLog });
  const prompts: Prompt[] = [];
  let pending: HookError[] = [];
  const messages: HookMessage[] = [];
  runner.onError((e) => { pending.push(e); });
  runner.initialize({
    getModel: () => undefined,
    sendMessageHandler: (message) => { messages.push(message); },
    appendEntryHandler: () => {},
    ...(options.ui ? { uiContext: scriptedUI(options.ui, prompts), hasUI: true } : {}),
  });
  return {
    cwd,
    agent,
    ...(inferred ? { inferred: inferred.why } : {}),
    runner,
    loadErrors,
    messages,
    prompts,
    logs,
    takeErrors() {
      const out = pending;
      pending = [];
      return out;
    },
    dispose: () => runner.dispose(),
  };
}

/** Let faults reported between events (after a worker died) arrive. */
export function settle(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/** A load error with what to do about the common causes Node words obscurely. */
function loadHint(error: string): string {
  if (/Cannot require\(\) ES Module|ERR_REQUIRE_(ESM|CYCLE_MODULE)/.test(error)) {
    return `${error} (the file uses import/export but the nearest package.json says "type": "commonjs": rename it to .mjs or .ts, or set "type": "module")`;
  }
  return error;
}
