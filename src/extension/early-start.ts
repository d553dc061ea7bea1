/**
 * The early start of `isolate()` (src/extension/adapter.ts): which modules are mirrored before they
 * load, from a record of the agent's previous start (./starts.ts) or a reading of their source
 * (./reading.ts), and which events wait for which of them once mirrored (./mirror.ts).
 */
import type { StartingModule } from "../runner/loader.js";
import type { Manifest } from "../contract/protocol.js";
import { TOOL_MEMBERS } from "../../worker/extension-members.mjs";
import { UNLOADED, readStart } from "./starts.js";
import { builtInTools, manifestKeys } from "./registrations.js";
import { refusedRegistration, refusedToolEffect, type Carried } from "./refusals.js";

/**
 * Modules mirrored before they loaded, from what they registered at the agent's previous start
 * (src/extension/starts.ts) or what a reading of their source found (src/extension/reading.ts):
 * each is checked as it arrives.
 */
export interface Early {
  modules: StartingModule[];
  /** Each module's registrations: from its record, from its reading, or (neither) as it loaded before the factory returned. */
  previous: Manifest[];
  /** Each module's record file, named from its contents at the start (`again`: from its contents now), and whether it had one (a module mirrored from its reading has none: its record is written once it arrived). */
  records: { files: string[]; again: () => Promise<string[] | undefined> }; recorded: boolean[];
  builtIns: readonly string[];
}

/** Events every module is waited for: a tool call (a guard must not miss one) and the end of the session (every worker is ended). */
export const WAIT_FOR_ALL = new Set(["tool_call", "session_shutdown"]);
/**
 * The events pi sends from its start to its first model request. At a start that mirrors the
 * previous one, only the modules that handled one of them start at once; the others when an event
 * needs them, when the agent is about to call the model (`context`), or once the agent has been
 * idle a second after the first ones arrived (an interactive agent waiting for its prompt).
 */
export const BEFORE_FIRST_REQUEST = ["session_start", "resources_discover", "input", "before_agent_start", "agent_start", "turn_start", "message_start", "message_end", "context", "before_provider_request"];
/**
 * A reading whose module no event before the agent's first request waits for, or undefined: one
 * that handles such an event is waited for by the start anyway, and loads before the factory
 * returns, as with no reading (mirrored, it would hold the agent after it accepted the first prompt).
 */
const startsLate = (read: Manifest | undefined) => (read && !BEFORE_FIRST_REQUEST.some((type) => (read.events[type] ?? 0) > 0) ? read : undefined);
/** How long after the first modules arrived the others start when nothing needed them sooner. */
export const IDLE_START_MS = 1_000;

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
export const calledSynchronously = (m: Manifest) => m.renderers.length > 0
  || (m.tools ?? []).some((t) => TOOL_MEMBERS.synchronous.some((member) => (t as Record<string, unknown>)[member] === true));

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
export async function earlyStart(modules: StartingModule[], records: Early["records"], carried: Carried, line: "omp" | "pi", read: (path: string) => Manifest | undefined): Promise<Early | undefined> {
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

