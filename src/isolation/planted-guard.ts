/**
 * What a project module (one with an approval) may not make in the folders its grants open for
 * writing: a name git or an agent takes up (src/policy/planted.ts). Its granted folders are walked
 * before and after each request; what appeared in between fails the request (`effect_refused`, the
 * paths named): the supervisor disables the module and ends it (./supervisor.ts), and once nothing
 * of it is left what it made is removed. Only where `policy.fsWrite` holds at all: the sandbox, or Node's
 * permission model (a `trusted` module writes anywhere, and nothing is guarded).
 */
import { Errors, pathList, type HookFailure } from "../contract/errors.js";
import type { ResolvedSandboxOptions } from "../options/options.js";
import { removePlantedIn, removeUnconfined, plantedSince, takenUpEntries, WalkTooLarge, type Remover } from "../policy/planted.js";
import { sandboxAvailability } from "./bubblewrap/availability.js";

/** Each granted folder's entries under those names, by folder. */
export type Taken = Map<string, Map<string, string>>;

export class PlantedGuard {
  /** The walks before each request still in flight: what was there before the earliest of them is what stays. */
  readonly #inFlight = new Set<Taken>();
  /** Once something was planted: the one failure every request in flight and after gets. */
  #refused: Promise<HookFailure> | undefined;

  private constructor(readonly folders: readonly string[], readonly hookPath: string) {}

  /** The guard of a module of `options`, or undefined when it has no granted folder it is held to. */
  static of(options: ResolvedSandboxOptions, hookPath: string): PlantedGuard | undefined {
    const { policy } = options;
    if (options.approval === undefined || policy.fsWrite.length === 0) return undefined;
    if (options.isolation !== "sandbox" && !policy.permissionModel) return undefined;
    return new PlantedGuard([...new Set(policy.fsWrite)], hookPath);
  }

  /**
   * Run `call` (one request) guarded. Something planted: `stop` ends the module for good (resolves
   * once nothing of it is left), then what appeared is removed and the request rejects with the
   * failure (`refused` hears it once), as does every request in flight.
   */
  async around<T>(event: string, call: () => Promise<T>, stop: () => Promise<void>, refused: (f: HookFailure) => void): Promise<T> {
    const before = this.before(event);
    if (!(before instanceof Map)) throw before;
    this.#inFlight.add(before);
    try {
      let outcome: { ok: true; value: T } | { ok: false; error: unknown };
      try {
        outcome = { ok: true, value: await call() };
      } catch (error) {
        outcome = { ok: false, error };
      }
      if (this.#refused || this.planted(before)) {
        this.#refused ??= stop().then(async () => { const f = await this.remove(earliest(this.#inFlight), event); refused(f); return f; });
        throw await this.#refused;
      }
      if (!outcome.ok) throw outcome.error;
      return outcome.value;
    } finally {
      this.#inFlight.delete(before);
    }
  }

  /** Before a request: what the folders hold; a failure (crashed, named) when one is over the walk's bound. */
  before(event: string): Taken | HookFailure {
    const taken: Taken = new Map();
    try {
      for (const folder of this.folders) taken.set(folder, takenUpEntries(folder));
    } catch (err) {
      if (!(err instanceof WalkTooLarge)) throw err;
      return Errors.crashed(this.hookPath, event, `it was not called: ${err.message}`);
    }
    return taken;
  }

  /** After it: whether anything appeared (the module is still running; nothing is removed yet). */
  planted(before: Taken): boolean {
    for (const [folder, known] of before) {
      try {
        if (plantedSince(known, takenUpEntries(folder)).length > 0) return true;
      } catch (err) {
        if (!(err instanceof WalkTooLarge)) throw err;
        return true;
      }
    }
    return false;
  }

  /**
   * Once nothing of the module is left: remove what appeared, and the failure naming it. Confined to
   * each folder where bubblewrap runs (another module of the project may still run beside it:
   * ./bubblewrap/confined-remove.ts), else each path's folders checked first.
   */
  async remove(before: Taken, event: string): Promise<HookFailure> {
    const remove: Remover = sandboxAvailability().ok ? (await import("./bubblewrap/confined-remove.js")).removeInside : removeUnconfined;
    const { removed, left, tooLarge: over } = removePlantedIn(before, remove);
    const could = left.length > 0 ? `removed what it could (not ${pathList(left)}: remove it yourself)` : "removed it";
    if (removed.length > 0) return Errors.planted(this.hookPath, event, removed, `hookbox ended the module (disabled until it is reloaded), ${could}, and did not apply its answer`);
    return Errors.crashed(this.hookPath, event, over ? over.message : "what it made in a granted folder was gone when hookbox looked again");
  }
}

/** What every walk of `walks` found, the same entry in each: what was there before all of them. */
function earliest(walks: ReadonlySet<Taken>): Taken {
  const [first, ...rest] = walks;
  const out: Taken = new Map();
  for (const [folder, known] of first!) out.set(folder, new Map([...known].filter(([path, id]) => rest.every((w) => w.get(folder)?.get(path) === id))));
  return out;
}
