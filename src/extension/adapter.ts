/**
 * `hookbox/extension`: isolate a coding agent's extensions without replacing the agent. In pi
 * (0.73.1) an extension is a factory the agent awaits; `isolate(paths, options)` returns one. It
 * loads each module with `loadHooks` (each in its own worker, process or sandbox), then mirrors on
 * the agent's real `pi` every event the adapter carries, forwarding each call to hookbox's
 * `HookRunner` and returning its result to the agent's runner, which keeps its own ordering and
 * combination rules. Tools, commands, flags and shortcuts are mirrored as data, and what they run
 * runs isolated (src/extension/registrations.ts). What crosses and what is refused is one table:
 * `worker/extension-members.mjs`. The mirroring itself is ./mirror.ts; a start that mirrors modules
 * before they load, ./early-start.ts.
 */
import { terminalText } from "../gates/terminal-text.js";
import { Errors } from "../contract/errors.js";
import { prepareExtensionModules, settleModules, type LoadOptions, type StartingModule } from "../runner/loader.js";
import { UNLOADED, startRecordFiles, writeStartsAfterLoad } from "./starts.js";
import { readModule } from "./reading.js";
import { readIsolateConfig } from "./config.js";
import { baseFolder, callerFile, modulePath } from "./base.js";
import { Notices, type ProjectGrants } from "./notices.js";
import { withAgentOutput } from "./output.js";
import { alsoLoadedByAgent } from "./also-loaded.js";
import type { OmpModule } from "../discovery/agents.js";
import { runningOmpModules, runningPiModules } from "../discovery/agent-packages.js";
import { withAgentExports } from "./agent-exports-cache.js";
import { SCHEMAS, optionsProblem } from "../options/schemas.js";
import type { LoadedHook } from "../runner/hook.js";
import type { IsolatedHook } from "../runner/isolated-hook.js";
import { REFUSED_MEMBERS } from "../../worker/extension-members.mjs";
import { agentLine, carriedEvents } from "./carried.js";
import { Mirror, type AgentExtensionAPI } from "./mirror.js";
import { earlyStart } from "./early-start.js";
import { agentRefusal, showUnfired, type Unloaded } from "./refusals.js";

export type { AgentContext } from "./context.js";
export { agentLine, carriedEvents };
export type { AgentExtensionAPI } from "./mirror.js";
export { agentRefusal, RENDERER_NEEDS_WORKER, type Unloaded } from "./refusals.js";

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




/** An extension factory, as the agent awaits it. */
export type IsolatedExtension = (pi: AgentExtensionAPI) => Promise<void>;


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

/** Every member of the agent's ExtensionAPI the adapter refuses, with why (for docs and tests). */
export const refusedMembers: Readonly<Record<string, string>> = REFUSED_MEMBERS;
