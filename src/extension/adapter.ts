/**
 * `hookbox/extension`: isolate a coding agent's extensions without replacing the agent. In pi
 * (0.73.1) an extension is a factory the agent awaits; `isolate(paths, options)` returns one. It
 * loads each module with `loadHooks` (each in its own worker, process or sandbox), then mirrors on
 * the agent's real `pi` every event the adapter carries, forwarding each call to hookbox's
 * `HookRunner` and returning its result to the agent's runner, which keeps its own ordering and
 * combination rules. Tools, commands, flags and shortcuts are mirrored as data, and what they run
 * runs isolated (src/extension/registrations.ts). What crosses and what is refused is one table:
 * `worker/extension-members.mjs`.
 */
import { terminalText } from "../gates/terminal-text.js";
import { Errors, type HookError, type HookErrorCode, type HookFailure } from "../contract/errors.js";
import { memberRefusal } from "../bridge/agent-gate.js";
import type { LoadedHook } from "../runner/hook.js";
import { loadWarnings, prepareExtensionModules, settleModules, type LoadOptions, type StartingModule } from "../runner/loader.js";
import { UNLOADED, readStart, sameManifest, startRecordFiles, writeStartsAfterLoad } from "./starts.js";
import { readModule } from "./reading.js";
import type { Manifest } from "../contract/protocol.js";
import { readIsolateConfig } from "./config.js";
import { baseFolder, callerFile, modulePath } from "./base.js";
import { Notices, type ProjectGrants } from "./notices.js";
import { withAgentOutput } from "./output.js";
import { alsoLoadedByAgent } from "./also-loaded.js";
import type { OmpModule } from "../discovery/agents.js";
import { runningOmpModules, runningPiModules } from "../discovery/agent-packages.js";
import { withAgentExports } from "./agent-exports-cache.js";
import { SCHEMAS, optionsProblem } from "../options/schemas.js";
import { HookRunner } from "../runner/runner.js";
import { auditRunner, unloadedRecord } from "../observe/launch.js";
import { LiveAgentContext, agentAccess, type AgentContext } from "./context.js";
import {
  builtInTools, manifestKeys, mirrorRegistrations, mirrorTool, registeredFlag, registrationKeys, registrationRefusal, type AgentRegistrationAPI, type MirrorDeps,
} from "./registrations.js";
import { IsolatedHook } from "../runner/isolated-hook.js";
import { REFUSED_MEMBERS, TOOL_MEMBERS, refusedToolMemberMessage } from "../../worker/extension-members.mjs";
import { carriedEvents } from "./carried.js";
import type { HookEvent } from "../contract/types.js";
import type { ToolSpec } from "../contract/registration-schemas.js";

export type { AgentContext } from "./context.js";
export { carriedEvents };

export interface IsolateOptions extends LoadOptions {
  /**
   * Modules (as given in `paths`, or their absolute paths) whose failure to load does not block
   * tool calls. By default a module that did not load blocks every tool call (fail closed): a
   * guard that failed to load must not let the model's `rm -rf` run unguarded.
   */
  optional?: string[];
  /**
   * What relative paths (in `paths`, `optional` and `perHook`) resolve against: a file (its folder;
   * pass `import.meta.url` or `__filename`) or a folder. By default the folder of the file that
   * calls `isolate()`, found from the call stack.
   */
  base?: string | URL;
}

/**
 * The deadlines `isolate()` gives a module unless its options say otherwise (merged under the
 * caller's `deadlines`, shared and per module): inside an agent a person waits on every tool call,
 * so a hanging guard blocks that call after 5 s of its own time (time waiting on the host, a UI
 * prompt or `pi.exec`, does not count), not `loadHooks`' 30 s. A slash command the person typed,
 * and a compaction (which may summarize with a model), keep 30 s.
 */
export const AGENT_DEADLINES: Readonly<Record<string, number>> = { default: 5_000, command: 30_000, session_before_compact: 30_000 };

/** The part of the agent's `ExtensionAPI` (pi 0.73.1) the adapter uses. */
export interface AgentExtensionAPI extends AgentRegistrationAPI {
  // `any`: pi's ExtensionAPI overloads `on` per event; this keeps it assignable to the parameter.
  on(event: any, handler: any): void;
  sendMessage(message: any, options?: any): void;
  appendEntry(customType: string, data?: unknown): void;
  registerMessageRenderer?(customType: string, renderer: (message: any, options: any, theme: any) => unknown): void;
  // pi's agent members, reached by name through `AgentAccess` (src/bridge/agent-gate.ts gates them).
  sendUserMessage?(content: any, options?: any): void;
  setSessionName?(name: string): void;
  getSessionName?(): string | undefined;
  setLabel?(entryId: string, label: string | undefined): void;
  getActiveTools?(): string[];
  getAllTools?(): unknown[];
  setActiveTools?(toolNames: string[]): void;
  getCommands?(): unknown[];
  setModel?(model: any): Promise<boolean>;
  getThinkingLevel?(): string;
  setThinkingLevel?(level: any): void;
}

/**
 * Which line of agents `pi` (the agent's ExtensionAPI) comes from: `omp` for oh-my-pi and xcsh,
 * whose API injects the agent's own module as `pi.pi` (as the seed's HookAPI does), else `pi`.
 * It decides which events cross: the omp line also has the seed's hook events pi lacks
 * (`OMP_RESULT_EVENTS`, `OMP_NOTIFY_EVENTS`), which legacy `--hook` modules use.
 */
export function agentLine(pi: object): "omp" | "pi" {
  const own = (pi as { pi?: unknown }).pi;
  return typeof own === "object" && own !== null ? "omp" : "pi";
}

type Carried = ReturnType<typeof carriedEvents>;

/** An extension factory, as the agent awaits it. */
export type IsolatedExtension = (pi: AgentExtensionAPI) => Promise<void>;

/** A module that did not load (or was refused before loading), with why. */
export interface Unloaded { path: string; code: HookErrorCode; error: string }

/**
 * The extension factory that loads `paths` isolated. A relative path resolves against the folder of
 * the file that calls `isolate()` (or `options.base`), never the agent's working folder; `~` is the
 * home folder; a file: URL is taken as is. Options are `loadHooks`' plus `optional` and `base`.
 * Arguments that are wrong (an unknown option, a path that is not a string) do not throw: the
 * factory loads nothing and blocks every tool call (fail closed), reported through the agent's error
 * path naming `isolate` and the option, as `isolateConfig` does for its file.
 * The factory resolves when every module has loaded (or failed to) and every event is mirrored; or,
 * for the modules that loaded cleanly at the agent's previous start (src/extension/starts.ts) or
 * whose source shows they register commands and event handlers only (src/extension/reading.ts), at once with
 * what they registered then or what the reading found: each event then waits for the modules that
 * handle it, every tool call for all of them, and what a module registers otherwise when it arrives
 * is taken as far as the agent takes it at that point, with one warning naming the rest.
 */
export function isolate(paths: Array<string | URL>, options: IsolateOptions = {}, /** @internal modules refused before loading (not approved): they block like a failed load */ before: readonly Unloaded[] = [],
  /** @internal a project's modules and the command that grants them (isolateDiscovered) */ grants?: ProjectGrants): IsolatedExtension {
  const caller = callerFile(isolate);
  let checked: ReturnType<typeof checkIsolateArguments>;
  try {
    checked = checkIsolateArguments(paths, options, caller);
  } catch (err) {
    return failClosed("isolate", (err as Error).message);
  }
  const { resolved, isOptional } = checked;
  const notices = new Notices(grants);
  const { options: loadOptions, ready: output } = withAgentOutput(notices.watch(checked.loadOptions));
  return async (pi) => {
    // Where the agent's stderr is a terminal: what cuts a module's lines into its rows, loaded before any module can write one.
    await output;
    const cwd = process.cwd();
    const line = agentLine(pi);
    const carried = carriedEvents(line);
    // A module the agent loads itself is not loaded again: it is reported, and blocks like a failed load.
    const twice = await alsoLoadedByAgent(resolved, cwd, line === "omp" ? (pi as unknown as { pi: OmpModule }).pi : undefined);
    const paths = resolved.filter((p) => !twice.some((t) => t.path === p));
    let modules: StartingModule[];
    const agentModules = line === "omp" ? runningOmpModules() : withAgentExports(runningPiModules(), loadOptions.transformCacheDir);
    try {
      modules = prepareExtensionModules(paths, cwd, loadOptions, agentModules);
    } catch (err) {
      return failClosed("isolate", (err as Error).message)(pi);
    }
    // What the same modules registered at the agent's previous start, or (no record) what a module's source says it registers (commands and handlers): mirrored now, each module checked as it arrives.
    const recordFiles = () => startRecordFiles(paths, cwd, line, loadOptions);
    const records = await recordFiles();
    const early = records && twice.length === 0 && before.length === 0 && modules.every((m) => m.hook)
      ? await earlyStart(modules, { files: records, again: recordFiles }, carried, line, (path) => readModule(path, line, agentModules)) : undefined;
    if (early) {
      const mirror = new Mirror(pi, modules.map((m) => m.hook!), cwd, [], isOptional, carried, notices, early);
      mirror.install();
      // What the agent calls synchronously (a message renderer, a tool's renderers or prepareArguments) needs its module running.
      await mirror.synchronousArrived();
      return;
    }
    const loaded = await settleModules(modules);
    // What runs with less than its full bounds here, or in a stronger mode than the default (a Bun host): said once per module.
    for (const { path, warning } of loaded.warnings ?? []) notices.show(path, `warning:${warning}`, `hookbox: ${path}: ${warning}`);
    const unloaded: Unloaded[] = [
      ...before,
      ...twice.map(({ path, why }) => ({ path, code: "load_failed" as const, error: Errors.loadFailed(path, why).message })),
      ...loaded.errors.map(({ path, code, error }) => ({ path, code, error })),
    ];
    const hooks: LoadedHook[] = [];
    const taken = new Set<string>();
    for (const hook of loaded.hooks) {
      const refused = agentRefusal(hook, line, taken);
      if (!refused) { hooks.push(hook); showUnfired(notices, hook, carried); continue; }
      unloaded.push(refused);
      await hook.dispose?.();
    }
    new Mirror(pi, hooks, cwd, unloaded, isOptional, carried, notices).install();
    // A module that loaded and crossed is recorded (the next start mirrors it); one that did not is recorded as such (the next start waits for it).
    if (records) await writeStartsAfterLoad(records, recordFiles, paths.map((p) => (hooks.find((h) => h.path === p && !unloaded.some((u) => u.path === p)) as IsolatedHook | undefined)?.manifest ?? UNLOADED));
  };
}

/**
 * The early start, when at least one module has a record of the agent's previous start or is read
 * from its source (src/extension/reading.ts: one that registers commands and event handlers only,
 * none of an event pi sends before its first request: `startsLate`): the modules
 * with neither (new or changed since, or registering more than commands and handlers) load now, since the agent
 * takes their commands, flags and shortcuts only while the factory runs; the others are mirrored
 * from their record or reading, which is checked as a record is when the module arrives. Undefined
 * (the start waits for every module) when no module has either, one that loaded now failed or would
 * be refused, or the records do not pass the gates a load passes.
 */
async function earlyStart(modules: StartingModule[], records: Early["records"], carried: Carried, line: "omp" | "pi", read: (path: string) => Manifest | undefined): Promise<Early | undefined> {
  const kept = await Promise.all(records.files.map(readStart));
  // A module that did not load at the previous start (the same contents) is waited for: if it still does not, that is reported at the agent's start.
  const recorded = kept.map((record) => (record === UNLOADED ? undefined : record));
  const known = kept.map((record, i) => {
    const hook = modules[i]!.hook!;
    // A module under an approval is read only as it loads now: mirrored, its worker would read the file later, after a change nobody approved.
    const found = record === UNLOADED ? undefined : record ?? (hook.sandbox.options.approval === undefined ? startsLate(read(hook.path)) : undefined);
    // What the host refuses before the module runs (its approval, its runtime) is known now: such a module is not mirrored, and its refusal is reported before the factory returns.
    return found && hook.refusedBeforeLoad() === undefined ? found : undefined;
  });
  if (known.every((m) => m === undefined)) return undefined;
  const fresh = modules.filter((_, i) => known[i] === undefined);
  const failures = await Promise.all(fresh.map((m) => m.begin()));
  if (failures.some((f) => f !== undefined) || fresh.some((m) => refusedRegistration(m.hook!, carried) !== undefined)) return undefined;
  const previous = known.map((m, i) => m ?? modules[i]!.hook!.manifest);
  const builtIns = builtInTools(line);
  return recordCrosses(modules, previous, builtIns) ? { modules, previous, records, recorded: recorded.map((m) => m !== undefined), builtIns } : undefined;
}

/**
 * Why the agent of `line` does not run a loaded module, or undefined: a registration above its
 * policy.effects (`effect_refused`), or one the adapter cannot carry or an earlier module took
 * (`load_failed`). `taken`: the registrations of the modules before it (filled in). `hookbox
 * check --agent pi` reports the same.
 */
export function agentRefusal(hook: LoadedHook, line: "omp" | "pi", taken: Set<string>): Unloaded | undefined {
  const builtIns = builtInTools(line);
  const replacing = refusedEffect(hook, builtIns);
  if (replacing) return { path: hook.path, code: replacing.code, error: replacing.message };
  const refusal = refusedRegistration(hook, carriedEvents(line)) ?? registrationRefusal(hook, taken);
  return refusal === undefined ? undefined : { path: hook.path, code: "load_failed", error: Errors.loadFailed(hook.path, refusal).message };
}

/**
 * `isolate()`'s arguments checked (throws an Error naming `isolate` and the option) and resolved
 * against the base folder: the module paths, `loadHooks`' options (perHook keyed by absolute path)
 * and which modules are optional.
 */
function checkIsolateArguments(paths: unknown, options: unknown, caller: string | undefined) {
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== "string" && !(p instanceof URL))) throw new TypeError("isolate: paths must be an array of module paths (strings or file: URLs)");
  if (options === null || typeof options !== "object") throw new TypeError("isolate: options must be an object");
  const { optional = [], base, ...loadOptions } = options as IsolateOptions;
  if (!Array.isArray(optional) || optional.some((p) => typeof p !== "string")) throw new TypeError("isolate: option \"optional\" must be an array of module paths (strings)");
  if ((loadOptions as { watch?: unknown }).watch !== undefined) throw new TypeError("isolate: unknown option \"watch\" (a module is loaded once; restart the agent to reload it)");
  const problem = optionsProblem(SCHEMAS.loadHooks, loadOptions);
  if (problem !== undefined) throw new TypeError(`isolate: ${problem}`);
  const cwd = process.cwd();
  const folder = baseFolder(base, caller, cwd);
  const resolved = (paths as Array<string | URL>).map((p) => modulePath(p, folder));
  const perHook = loadOptions.perHook === undefined ? undefined
    : Object.fromEntries(Object.entries(loadOptions.perHook).map(([key, own]) =>
      [modulePath(key, folder), own.deadlines === undefined ? own : { ...own, deadlines: { ...AGENT_DEADLINES, ...own.deadlines } }]));
  const optionalPaths = new Set(optional.map((o) => modulePath(o, folder)));
  return {
    resolved,
    loadOptions: { ...loadOptions, deadlines: { ...AGENT_DEADLINES, ...loadOptions.deadlines }, ...(perHook ? { perHook } : {}) } as LoadOptions,
    isOptional: (path: string) => optionalPaths.has(path) || optionalPaths.has(modulePath(path, folder)),
  };
}

/** The factory for arguments or a file that are wrong: it loads nothing and blocks every tool call, reported naming `where`. */
function failClosed(where: string, message: string): IsolatedExtension {
  return async (pi) => {
    // The message may quote a key or value the user wrote: it passes the terminal-text gate.
    const unloaded = [{ path: where, code: "load_failed" as const, error: terminalText(message, { colors: false }) }];
    new Mirror(pi, [], process.cwd(), unloaded, () => false, carriedEvents(agentLine(pi))).install();
  };
}

/**
 * The extension factory for the modules and options a JSON config file names (src/extension/config.ts):
 * `export default isolateConfig("./isolated.json")`. A relative `file` resolves against the folder
 * of the file that calls `isolateConfig`, like `isolate`'s paths (a file: URL, e.g.
 * `new URL("./isolated.json", import.meta.url)`, is taken as is); the modules' paths resolve against
 * the JSON file's folder. The file is
 * read when the agent loads the factory. A file that is missing or wrong loads nothing and blocks
 * every tool call (fail closed), reported through the agent's error path naming the file and the field.
 */
export function isolateConfig(file: string | URL): IsolatedExtension {
  const caller = callerFile(isolateConfig);
  if (typeof file !== "string" && !(file instanceof URL)) return failClosed("isolateConfig", "isolateConfig: file must be a path (string) or a file: URL");
  const where = modulePath(file, baseFolder(undefined, caller, process.cwd()));
  return async (pi) => {
    let config: ReturnType<typeof readIsolateConfig>;
    try {
      config = readIsolateConfig(where);
    } catch (err) {
      return failClosed(where, (err as Error).message)(pi);
    }
    await isolate(config.paths, config.options)(pi);
  };
}

/**
 * A registration that changes what the agent does, above the module's policy.effects: a tool under
 * one of the agent's built-in names would replace the agent's own (`MEMBER_EFFECTS["registerTool:built-in"]`;
 * under substitute it does, as in the agent), a tool's prompt snippet or
 * guidelines are system prompt text (`"registerTool:prompt"`). Refused as `effect_refused`, naming it.
 */
function refusedEffect(hook: LoadedHook, builtIns: readonly string[]): HookFailure | undefined {
  if (!(hook instanceof IsolatedHook)) return undefined;
  for (const tool of hook.registrations.tools ?? []) {
    const refused = refusedToolEffect(hook, tool, builtIns);
    if (refused) return refused;
  }
  return undefined;
}

/** `refusedEffect` for one tool of the module (at load, or registered later). */
function refusedToolEffect(hook: IsolatedHook, tool: ToolSpec, builtIns: readonly string[]): HookFailure | undefined {
  const policy = hook.sandbox.options.policy;
  if (builtIns.includes(tool.name)) return memberRefusal(policy, hook.path, "registerTool:built-in", `pi.registerTool("${tool.name}"), replacing the agent's built-in tool`);
  // A tool's prompt snippet and guidelines are text the agent adds to the model's system prompt.
  const field = tool.promptSnippet !== undefined ? "promptSnippet" : tool.promptGuidelines !== undefined ? "promptGuidelines" : undefined;
  return field ? memberRefusal(policy, hook.path, "registerTool:prompt", `pi.registerTool("${tool.name}") with a ${field} (text the agent adds to its system prompt)`) : undefined;
}

/** What a loaded module registered that the adapter cannot carry, as a message; undefined when all of it crosses. */
function refusedRegistration(hook: LoadedHook, carried: Carried): string | undefined {
  for (const [event, list] of hook.handlers) {
    if (list.length > 0 && Object.hasOwn(carried.refused, event)) return `pi.on("${event}") is refused by hookbox/extension: ${carried.refused[event]}`;
  }
  if (hook.messageRenderers.size > 0 && hook.sandbox?.options.isolation !== "worker") return `pi.registerMessageRenderer is refused by hookbox/extension: ${RENDERER_NEEDS_WORKER}`;
  // A tool's renderers and prepareArguments, as message renderers: worker isolation only.
  if (hook instanceof IsolatedHook && hook.sandbox.options.isolation !== "worker") {
    for (const tool of hook.registrations.tools ?? []) {
      const member = TOOL_MEMBERS.synchronous.find((m) => (tool as Record<string, unknown>)[m] === true);
      if (member) return `${refusedToolMemberMessage(member)} (tool "${tool.name}")`;
    }
  }
  return undefined;
}

/** Why a renderer crosses in worker mode only. */
export const RENDERER_NEEDS_WORKER = "the agent's terminal calls a renderer's render(width) synchronously, which only worker isolation answers (shared memory); "
  + "in process and sandbox isolation the message would render by default";

/** `value` as plain data (what JSON keeps of it), or undefined when it is not serializable. */
function asData(value: unknown): unknown {
  try {
    return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  } catch {
    return undefined;
  }
}

/**
 * The events `hook` subscribes to that the agent does not have (one of an older or newer agent,
 * pi's `session_switch` or `agent_settled`, or a misspelt name): the agent never fires such a
 * handler in its own process, so the module loads and the handler is never called, said once.
 */
function unfiredEvents(hook: LoadedHook, carried: Carried): string[] {
  return [...hook.handlers].filter(([event, list]) => list.length > 0 && !Object.hasOwn(carried.refused, event) && !isCarried(event, carried)).map(([event]) => event);
}

/** Says once per module and event that a handler of an event the agent lacks is never called. */
function showUnfired(notices: Notices, hook: LoadedHook, carried: Carried): void {
  const agent = carried.line === "omp" ? "oh-my-pi" : "pi";
  for (const event of unfiredEvents(hook, carried)) {
    notices.show(hook.path, `unfired:${event}`, `hookbox: ${hook.path}: pi.on(${JSON.stringify(event)}): ${agent} has no such event, so this handler is never called (the module is loaded, as ${agent} loads it)`);
  }
}

function isCarried(event: string, carried: Carried): boolean {
  return carried.results.includes(event) || carried.notified.includes(event);
}

/**
 * Modules mirrored before they loaded, from what they registered at the agent's previous start
 * (src/extension/starts.ts) or what a reading of their source found (src/extension/reading.ts):
 * each is checked as it arrives.
 */
interface Early {
  modules: StartingModule[];
  /** Each module's registrations: from its record, from its reading, or (neither) as it loaded before the factory returned. */
  previous: Manifest[];
  /** Each module's record file, named from its contents at the start (`again`: from its contents now), and whether it had one (a module mirrored from its reading has none: its record is written once it arrived). */
  records: { files: string[]; again: () => Promise<string[] | undefined> }; recorded: boolean[];
  builtIns: readonly string[];
}

/** Events every module is waited for: a tool call (a guard must not miss one) and the end of the session (every worker is ended). */
const WAIT_FOR_ALL = new Set(["tool_call", "session_shutdown"]);
/**
 * The events pi sends from its start to its first model request. At a start that mirrors the
 * previous one, only the modules that handled one of them start at once; the others when an event
 * needs them, when the agent is about to call the model (`context`), or once the agent has been
 * idle a second after the first ones arrived (an interactive agent waiting for its prompt).
 */
const BEFORE_FIRST_REQUEST = ["session_start", "resources_discover", "input", "before_agent_start", "agent_start", "turn_start", "message_start", "message_end", "context", "before_provider_request"];
/**
 * A reading whose module no event before the agent's first request waits for, or undefined: one
 * that handles such an event is waited for by the start anyway, and loads before the factory
 * returns, as with no reading (mirrored, it would hold the agent after it accepted the first prompt).
 */
const startsLate = (read: Manifest | undefined) => (read && !BEFORE_FIRST_REQUEST.some((type) => (read.events[type] ?? 0) > 0) ? read : undefined);
/** How long after the first modules arrived the others start when nothing needed them sooner. */
const IDLE_START_MS = 1_000;

/**
 * Whether what a record says the modules registered passes the gates a load passes (no tool above
 * a module's policy.effects, no name twice): a record is written only after such a start, and one
 * that does not (changed by hand) is not mirrored, the start waits for every module.
 */
function recordCrosses(modules: readonly StartingModule[], previous: readonly Manifest[], builtIns: readonly string[]): boolean {
  const taken = new Set<string>();
  return modules.every(({ hook }, i) => {
    const keys = manifestKeys(previous[i]!);
    if (keys.some((k) => taken.has(k))) return false;
    for (const k of keys) taken.add(k);
    return (previous[i]!.tools ?? []).every((tool) => refusedToolEffect(hook!, tool, builtIns) === undefined);
  });
}

/** Whether the agent calls something of this manifest synchronously (a message renderer, a tool's renderers or prepareArguments). */
const calledSynchronously = (m: Manifest) => m.renderers.length > 0
  || (m.tools ?? []).some((t) => TOOL_MEMBERS.synchronous.some((member) => (t as Record<string, unknown>)[member] === true));

/** One isolate() instance inside the agent: the runner over its modules and the handlers mirrored on the agent's `pi`. */
class Mirror {
  readonly #pi: AgentExtensionAPI;
  readonly #runner: HookRunner;
  readonly #live = new LiveAgentContext();
  readonly #unloaded: Unloaded[];
  readonly #blocking: Unloaded[];
  readonly #isOptional: (path: string) => boolean;
  readonly #carried: Carried;
  /** What each module's tools, commands, flags and shortcuts were when mirrored (`kind:name`). */
  readonly #mirrored = new Map<string, Set<string>>();
  readonly #renderers = new Set<string>();
  /** Each module's registrations (its manifest, replaced whenever it changes) as last checked after an event. */
  readonly #checked = new WeakMap<LoadedHook, unknown>();
  #initialized = false;
  #reportedUnloaded = false;
  #disposed = false;
  /** Per event type being forwarded: the module throws caught during each emit (#report fills the newest). */
  readonly #threw = new Map<string, HookError[][]>();

  readonly #notices: Notices;
  /** What the mirrored tools, commands and shortcuts need of this Mirror (set by install). */
  #deps: MirrorDeps | undefined;
  readonly #early: Early | undefined;
  /** Early: each module's arrival, checked (resolves, never rejects); made, and the worker started, when first needed. */
  readonly #arrivals: Array<Promise<void> | undefined> = [];
  #arrived: Promise<void> | undefined;
  /** Early: the modules not yet checked on arrival (their registrations are not looked at after events until then). */
  readonly #pending = new Set<string>();
  /** Early: the event types sent on before every module had arrived (a module arriving with a new handler of one missed it). */
  readonly #forwarded = new Set<string>();
  /** Early: every module arrived and was checked. */
  #complete = false;
  /**
   * Early: each module's manifest as it arrived (what its factory registered), which the record
   * keeps: a tool it registers later, in a handler, is registered again then, not mirrored at the next start.
   */
  readonly #atLoad: Manifest[] = [];

  constructor(pi: AgentExtensionAPI, hooks: LoadedHook[], cwd: string, unloaded: Unloaded[], isOptional: (path: string) => boolean, carried: Carried, notices = new Notices(), early?: Early) {
    this.#pi = pi;
    this.#early = early;
    for (const m of early?.modules ?? []) this.#pending.add(m.path);
    this.#notices = notices;
    this.#carried = carried;
    this.#unloaded = unloaded;
    this.#isOptional = isOptional;
    this.#blocking = unloaded.filter((u) => !isOptional(u.path));
    this.#runner = new HookRunner(hooks, cwd, this.#live.sessionManager, this.#live.modelRegistry);
    this.#runner.onError((e) => this.#report(e));
    auditRunner(this.#runner);
    this.#runner.insideAgent(carried.line, (path, kind, line) => this.#notices.show(path, kind, line));
  }

  install(): void {
    for (const event of [...this.#carried.results, ...this.#carried.notified]) {
      this.#pi.on(event, (payload: HookEvent & Record<string, unknown>, ctx: AgentContext) => this.#forward(event, payload, ctx));
    }
    const deps: MirrorDeps = {
      after: () => this.#afterRegistrationsChanged(),
      enter: (ctx: AgentContext) => { this.#live.set(ctx); this.#initialize(ctx); },
      report: (e: HookError) => this.#report(e),
      closed: () => this.#disposed,
      commandContext: (ctx: AgentContext & Record<string, any>) => ({
        ...this.#runner.createCommandContext(),
        waitForIdle: () => ctx.waitForIdle(),
        newSession: (options: any) => ctx.newSession(options),
        branch: (entryId: string) => ctx.fork(entryId),
        navigateTree: (targetId: string, options: any) => ctx.navigateTree(targetId, options),
      }),
    };
    this.#deps = deps;
    const early = this.#early;
    if (early) {
      deps.ready = (hook, key) => this.#ready(hook, key);
      early.modules.forEach((m, i) => {
        const manifest = early.previous[i]!;
        this.#mirrored.set(m.path, new Set(manifestKeys(manifest)));
        mirrorRegistrations(this.#pi, m.hook!, deps, manifest);
        for (const type of manifest.renderers) this.#mirrorRenderer(type);
      });
      const first = early.previous.flatMap((m, i) => (BEFORE_FIRST_REQUEST.some((type) => (m.events[type] ?? 0) > 0) ? [this.#arrival(i)] : []));
      void Promise.all(first).then(() => setTimeout(() => void this.#all(), IDLE_START_MS).unref());
      return;
    }
    for (const hook of this.#runner.getHooks()) {
      this.#mirrored.set(hook.path, new Set(registrationKeys(hook)));
      if (hook instanceof IsolatedHook) mirrorRegistrations(this.#pi, hook, deps);
    }
    this.#mirrorRenderers();
  }

  /** Early: resolves when the modules the agent calls synchronously (`calledSynchronously` of their previous start) arrived. */
  synchronousArrived(): Promise<unknown> {
    const early = this.#early;
    return Promise.all(early?.previous.flatMap((m, i) => (calledSynchronously(m) ? [this.#arrival(i)] : [])) ?? []);
  }

  /** Early: what an event of `type` waits for, the modules whose previous start handled it (every module for `WAIT_FOR_ALL`). */
  #waitFor(type: string): Promise<unknown> {
    const early = this.#early!;
    if (WAIT_FOR_ALL.has(type)) return this.#all();
    // The agent is sending its request to the model: the modules its answer may need (tool calls)
    // start behind it, one per turn of the loop (starting a worker takes the agent's thread; measured,
    // starting them all at `context` delayed the request by the 7 workers' start: docs/performance.md).
    if (type === "before_provider_request" && this.#arrived === undefined) setTimeout(() => void this.#all(), 0).unref();
    return Promise.all(early.previous.flatMap((m, i) => ((m.events[type] ?? 0) > 0 ? [this.#arrival(i)] : [])));
  }

  /** Early: module `i` arrived and was checked; its worker starts at the first call. */
  #arrival(i: number): Promise<void> {
    return (this.#arrivals[i] ??= this.#early!.modules[i]!.begin().then((failure) => this.#arrive(i, failure)));
  }

  /** Early: every module arrived and the set was checked. Those not started yet start one per turn of the agent's loop, so its I/O goes between. */
  #all(): Promise<void> {
    return (this.#arrived ??= (async () => {
      const arrivals: Array<Promise<void>> = [];
      for (let i = 0; i < this.#early!.modules.length; i++) {
        if (this.#arrivals[i] === undefined) await new Promise((resolve) => setImmediate(resolve));
        arrivals.push(this.#arrival(i));
      }
      await Promise.all(arrivals);
    })().then(() => this.#allArrived()));
  }

  /**
   * Early: a mirrored tool, command or shortcut (`key`) may run once every module arrived (so a
   * refusal is known); it throws when its module did not load, or no longer registers it.
   */
  async #ready(hook: IsolatedHook, key: string): Promise<void> {
    await this.#all();
    const unloaded = this.#unloaded.find((u) => u.path === hook.path);
    if (unloaded) throw Errors.loadFailed(hook.path, `it did not load (${unloaded.code}): ${unloaded.error}`);
    if (!registrationKeys(hook).includes(key)) {
      const [kind, name] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
      throw new Error(terminalText(`hookbox: ${hook.path} no longer registers the ${kind} "${name}" (it did at the agent's previous start, which this start mirrored; the next start will not have it)`, { colors: false }));
    }
  }

  /**
   * Early: module `i` arrived. What a first start would refuse is refused the same way (it failed
   * to load, a registration cannot cross or is above its policy.effects). What it registers
   * otherwise than at its previous start is taken as far as the agent takes it now: a new event
   * handler gets the events from now on, a new tool is registered (the agent takes tools at any
   * time); a new command, flag or shortcut (the agent takes those only at load), a handler of an
   * event that already passed it, and a registration it no longer makes are named in one warning.
   * The next start mirrors what it registers now (#allArrived rewrites the record).
   */
  async #arrive(i: number, failure: HookFailure | undefined): Promise<void> {
    const early = this.#early!;
    const { path, hook } = early.modules[i]!;
    let refused: Unloaded | undefined;
    if (failure) {
      refused = { path, code: failure.code, error: failure.message };
    } else {
      for (const warning of loadWarnings(hook!)) this.#notices.show(path, `warning:${warning}`, `hookbox: ${path}: ${warning}`);
      const effect = refusedEffect(hook!, early.builtIns);
      const why = effect ? undefined : refusedRegistration(hook!, this.#carried);
      if (effect) refused = { path, code: effect.code, error: effect.message };
      else if (why) refused = { path, code: "load_failed", error: Errors.loadFailed(path, why).message };
    }
    this.#pending.delete(path);
    if (refused) {
      this.#unloaded.push(refused);
      if (!this.#isOptional(path)) this.#blocking.push(refused);
      this.#report({ hookPath: path, event: "load", code: refused.code, error: refused.error });
      if (!failure) await hook!.dispose();
      return;
    }
    showUnfired(this.#notices, hook!, this.#carried);
    this.#atLoad[i] = hook!.manifest;
    const changes = this.#takeChanges(hook!, early.previous[i]!);
    this.#checked.set(hook!, hook!.registrations);
    this.#mirrorRenderers();
    if (changes.length > 0) {
      const mirrored = early.recorded[i] ? "at the agent's previous start" : "a reading of its source found";
      this.#notices.show(path, "changed-since-previous-start", `hookbox: ${path} registered otherwise than ${mirrored}, which this start mirrored while the module loaded: ${changes.join("; ")}. The next start has what it registers now.`);
    }
  }

  /** Early: what module `hook` registers now that its previous start (`before`) did not, taken where the agent takes it; the rest, as phrases. */
  #takeChanges(hook: IsolatedHook, before: Manifest): string[] {
    const mirrored = this.#mirrored.get(hook.path)!;
    const now = registrationKeys(hook);
    const leftOut: string[] = [];
    for (const key of now.filter((k) => !mirrored.has(k))) {
      const [kind, name] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
      const tool = kind === "tool" ? hook.registrations.tools?.find((t) => t.name === name) : undefined;
      // A name another module has is refused (as at a first start) once every module arrived (#allArrived).
      const elsewhere = [...this.#mirrored].some(([path, keys]) => path !== hook.path && keys.has(key));
      if (tool && !elsewhere) mirrorTool(this.#pi, hook, tool, this.#deps!);
      else if (!tool) leftOut.push(`${kind} "${name}"`);
      mirrored.add(key);
    }
    const gone = [...mirrored].filter((k) => !now.includes(k)).map((k) => `${k.slice(0, k.indexOf(":"))} "${k.slice(k.indexOf(":") + 1)}"`);
    const missed = Object.keys(hook.manifest.events).filter((type) => (hook.manifest.events[type] ?? 0) > 0 && this.#forwarded.has(type) && !((before.events[type] ?? 0) > 0));
    return [
      ...(leftOut.length > 0 ? [`${leftOut.join(", ")} not registered in the agent until it starts again (the agent takes commands, flags and shortcuts only at load)`] : []),
      ...(gone.length > 0 ? [`${gone.join(", ")} no longer registered (a call answers an error naming it)`] : []),
      ...(missed.length > 0 ? [`its handler of ${missed.map((t) => `"${t}"`).join(", ")} missed what the agent sent before the module loaded`] : []),
    ];
  }

  /** Early: every module arrived. Names two modules registered are refused as at a first start; the record is rewritten, or removed when a module did not load. */
  async #allArrived(): Promise<void> {
    const early = this.#early!;
    const taken = new Set<string>();
    for (const { path, hook } of early.modules) {
      if (this.#unloaded.some((u) => u.path === path)) continue;
      const refusal = registrationRefusal(hook!, taken);
      if (!refusal) continue;
      const late: Unloaded = { path, code: "load_failed", error: Errors.loadFailed(path, refusal).message };
      this.#unloaded.push(late);
      if (!this.#isOptional(path)) this.#blocking.push(late);
      this.#report({ hookPath: path, event: "load", code: "load_failed", error: late.error });
      await hook!.dispose();
    }
    this.#complete = true;
    // Each module's record: what it registered at load, or that it did not load or cross (the next start waits for it).
    const manifests = early.modules.map((m, i) => (this.#unloaded.some((u) => u.path === m.path) ? undefined : this.#atLoad[i] ?? m.hook!.manifest));
    if (manifests.some((m, i) => m === undefined || !early.recorded[i] || !sameManifest(m, early.previous[i]!))) {
      await writeStartsAfterLoad(early.records.files, early.records.again, manifests.map((m) => m ?? UNLOADED));
    }
  }

  /**
   * Each message renderer a module registered (worker isolation: `refusedRegistration`), on the
   * agent's `pi`: the agent's TUI gets hookbox's component stand-in (render(width) → lines, bounded
   * and gated by src/isolation/render-guard.ts). Renderers registered after load are mirrored at the
   * next event pi forwards.
   */
  #mirrorRenderers(): void {
    for (const hook of this.#runner.getHooks()) {
      if (this.#unloaded.some((u) => u.path === hook.path)) continue;
      for (const type of hook.messageRenderers.keys()) this.#mirrorRenderer(type);
    }
  }

  /** One message renderer on the agent's `pi`, answered by whichever module registered `type` (none: the agent renders by default). */
  #mirrorRenderer(type: string): void {
    const register = this.#pi.registerMessageRenderer;
    if (typeof register !== "function" || this.#renderers.has(type)) return;
    this.#renderers.add(type);
    register.call(this.#pi, type, (message: unknown, options: unknown, theme: unknown) =>
      this.#runner.getMessageRenderer(type)?.(message as never, options as never, theme as never));
  }

  async #forward(type: string, event: HookEvent & Record<string, unknown>, ctx: AgentContext): Promise<unknown> {
    this.#live.set(ctx);
    this.#initialize(ctx);
    if (this.#early && !this.#complete) {
      await this.#waitFor(type);
      this.#forwarded.add(type);
    }
    if (type === "tool_call" && this.#blocking.length > 0) {
      for (const u of this.#blocking) this.#runner.observer.emit(unloadedRecord(u, event, this.#carried.line, process.cwd()));
      return { block: true, reason: this.#blockReason() };
    }
    if (this.#disposed) return undefined;
    const threw: HookError[] = [];
    this.#threw.set(type, [...(this.#threw.get(type) ?? []), threw]);
    let result: unknown;
    try {
      result = this.#runner.hasHandlers(type) ? await this.#emit(type, event) : undefined;
    } finally {
      this.#threw.set(type, (this.#threw.get(type) ?? []).filter((t) => t !== threw));
    }
    this.#afterRegistrationsChanged();
    if (type === "session_shutdown") {
      this.#disposed = true;
      await this.#runner.dispose();
    }
    // Why a throw: it reaches the agent's own error path (pi's runner reports it by the extension's
    // path), after the loaded modules got the event.
    if (type === "session_start" && this.#unloaded.length > 0 && !this.#reportedUnloaded) {
      this.#reportedUnloaded = true;
      for (const e of threw) this.#show(reportLine(e), "error", e.hookPath);
      throw new Error(terminalText(`hookbox: ${this.#unloaded.map((u) => `${u.path} did not load (${u.code}): ${u.error}${this.#isOptional(u.path) ? " (optional: it blocks no tool call)" : ""}`).join("; ")}`
        + (this.#blocking.length > 0 ? "; every tool call is blocked (fail closed)" : ""), { colors: false, multiline: true }));
    }
    // A module's own throw where nothing answered: the agent's own error path, as if the module ran in
    // its process (pi reports it as the extension's error, with the module's message); others are shown.
    if (threw.length > 0 && result === undefined) {
      for (const e of threw.slice(1)) this.#show(reportLine(e), "error", e.hookPath);
      // The module's message, without the ` [CODE]` the runner adds for an error with a code (src/runner/handler-failures.ts).
      throw new Error(threw[0]!.error.replace(/ \[[A-Z][A-Z0-9_]*\]$/, ""));
    }
    for (const e of threw) this.#show(reportLine(e), "error", e.hookPath);
    return result;
  }

  async #emit(type: string, event: HookEvent & Record<string, unknown>): Promise<unknown> {
    switch (type) {
      case "tool_call":
        return this.#runner.emitToolCall(event as Parameters<HookRunner["emitToolCall"]>[0]);
      case "context": {
        const messages = event.messages as Parameters<HookRunner["emitContext"]>[0];
        const out = await this.#runner.emitContext(messages);
        return out === messages ? undefined : { messages: out };
      }
      case "before_agent_start": {
        // The module gets the prompt, images, system prompt and the options pi built it from
        // (BuildSystemPromptOptions: plain data, cwd, tools, context files, skills) as data; its
        // result's `systemPrompt` (chained across handlers) goes back to pi.
        const { prompt, images, systemPrompt, systemPromptOptions } = event as Record<string, unknown>;
        return this.#runner.emit({ type, prompt, images, systemPrompt, systemPromptOptions: asData(systemPromptOptions) } as unknown as HookEvent);
      }
      default: {
        const result = await this.#runner.emit(event);
        return this.#carried.results.includes(type) ? result : undefined;
      }
    }
  }

  /**
   * After an event, only for the modules whose registrations changed since the last look (their
   * manifest is replaced when they register more; a module that did not is not walked again on
   * every event): what cannot cross is refused, and renderers registered after load are mirrored.
   */
  #afterRegistrationsChanged(): void {
    const changed = this.#runner.getHooks().filter((hook) => {
      // A module mirrored from the agent's previous start is looked at first when it arrives (#arrive).
      if (this.#pending.has(hook.path)) return false;
      const now = hook instanceof IsolatedHook ? hook.registrations : undefined;
      if (now !== undefined && this.#checked.get(hook) === now) return false;
      this.#checked.set(hook, now);
      return true;
    });
    if (changed.length === 0) return;
    this.#refuseLate(changed);
    this.#mirrorRenderers();
  }

  /**
   * A tool registered after load is mirrored on the agent's `pi`, as pi takes one (dynamic tools),
   * under the same gates as at load. A registration made after load that cannot cross (a refused
   * event, a renderer outside worker isolation, a command, flag or shortcut, a tool another module
   * has or one above the module's policy.effects) is refused as a load would be: reported once,
   * and that module then blocks every tool call.
   */
  #refuseLate(hooks: readonly LoadedHook[]): void {
    for (const hook of hooks) {
      if (this.#unloaded.some((u) => u.path === hook.path)) continue;
      const refused = this.#lateRefusal(hook);
      if (!refused) continue;
      // The refusal may quote a name the module chose: HookFailure's message passes the terminal-text gate.
      const error = refused.code === "effect_refused" ? `${refused.message} (registered after load)` : Errors.loadFailed(hook.path, `${refused.message} (registered after load)`).message;
      const late: Unloaded = { path: hook.path, code: refused.code, error };
      this.#unloaded.push(late);
      if (!this.#isOptional(hook.path)) this.#blocking.push(late);
      this.#report({ hookPath: hook.path, event: "load", code: refused.code, error: late.error });
    }
  }

  /** Mirrors the tools `hook` registered since its last look; what cannot cross, with its code. */
  #lateRefusal(hook: LoadedHook): { code: "load_failed" | "effect_refused"; message: string } | undefined {
    const refusal = refusedRegistration(hook, this.#carried);
    if (refusal) return { code: "load_failed", message: refusal };
    showUnfired(this.#notices, hook, this.#carried);
    const mirrored = this.#mirrored.get(hook.path) ?? new Set<string>();
    this.#mirrored.set(hook.path, mirrored);
    for (const key of registrationKeys(hook).filter((k) => !mirrored.has(k))) {
      const kind = key.slice(0, key.indexOf(":"));
      const name = key.slice(kind.length + 1);
      const tool = hook instanceof IsolatedHook && kind === "tool" ? hook.registrations.tools?.find((t) => t.name === name) : undefined;
      if (!tool || !(hook instanceof IsolatedHook) || !this.#deps) {
        return { code: "load_failed", message: `a ${kind} registered after load ("${name}") is refused by hookbox/extension: commands, flags and shortcuts cross when the module's factory registers them` };
      }
      if ([...this.#mirrored].some(([path, keys]) => path !== hook.path && keys.has(key))) {
        return { code: "load_failed", message: `pi.registerTool("${name}") is refused by hookbox/extension: another isolated module registered it first` };
      }
      const effect = refusedToolEffect(hook, tool, builtInTools(agentLine(this.#pi)));
      if (effect) return { code: "effect_refused", message: effect.message };
      mirrorTool(this.#pi, hook, tool, this.#deps);
      mirrored.add(key);
    }
    return undefined;
  }

  #initialize(ctx: AgentContext): void {
    if (this.#initialized) return;
    this.#initialized = true;
    this.#notices.attach((line) => this.#show(line, "warning"));
    const live = this.#live;
    this.#runner.initialize({
      getModel: () => live.current?.model,
      sendMessageHandler: (message, options) => this.#pi.sendMessage(message, options),
      appendEntryHandler: (customType, data) => this.#pi.appendEntry(customType, data),
      isIdle: () => live.require().isIdle(),
      abort: () => live.require().abort(),
      hasQueuedMessages: () => live.require().hasPendingMessages(),
      uiContext: live.ui,
      hasUI: Boolean(ctx.hasUI),
      // pi's getFlag answers this extension's flags; each module reads only the flags it registered.
      getFlagHandler: (hookPath, name) => (registeredFlag(this.#runner.getHooks(), hookPath, name) ? this.#pi.getFlag(name) : undefined),
      agent: agentAccess(this.#pi as unknown as Record<string, any>, live),
    });
  }

  #blockReason(): string {
    // A module not approved says why and which command approves it; the others are named with their code.
    const failed = this.#blocking.filter((u) => u.code !== "not_approved");
    const parts = [
      ...(failed.length > 0 ? [`isolated extension ${failed.map((u) => `${u.path} (${u.code})`).join(", ")} did not load`] : []),
      ...this.#blocking.filter((u) => u.code === "not_approved").map((u) => u.error),
    ];
    return terminalText(`hookbox: blocked because ${parts.join("; ")} (fail closed)`, { colors: false });
  }

  /** A fault of an isolated module: the agent's UI when it has one, else stderr as pi prints extension errors. */
  #report(e: HookError): void {
    const line = reportLine(e);
    // A refused effect names the policy.effects that grants it; said once per module, event and code, not per call.
    if (e.code === "effect_refused") { this.#notices.effect(e.hookPath, e.event, line); return; }
    // A handler's own throw during an event the agent is waiting on: #forward gives it to the agent (tool_call's is a block).
    const waiting = e.code === "handler_threw" && e.event !== "tool_call" ? this.#threw.get(e.event)?.at(-1) : undefined;
    if (waiting) { waiting.push(e); return; }
    this.#show(line, "error", e.hookPath);
  }

  /** `line` on the agent's UI, else its stderr; gated (a module's path is named by whoever wrote the repository). */
  #show(line: string, level: "error" | "warning", hookPath?: string): void {
    const ctx = this.#live.current;
    try {
      if (ctx?.hasUI) { ctx.ui.notify(terminalText(line, { colors: false, multiline: true }), level); return; }
    } catch { /* the agent's UI is gone: fall back to stderr */ }
    console.error(terminalText(hookPath === undefined ? line : `Extension error (${hookPath}): ${line}`, { colors: false, multiline: true }));
  }
}

const reportLine = (e: HookError) => `hookbox: ${e.hookPath}: ${e.code} in ${e.event}: ${e.error}`;

/** Every member of the agent's ExtensionAPI the adapter refuses, with why (for docs and tests). */
export const refusedMembers: Readonly<Record<string, string>> = REFUSED_MEMBERS;
