/**
 * A command handler called with a context the caller built (`command.handler(args, ctx)`) uses
 * that context, as in the original: its `ui`, `newSession`, `sessionManager`… While the command
 * runs, the context is held here under a number the worker's command context sends with each of
 * its calls (`scoped.call`, `scoped.post`, `scoped.sync`); the sandbox's bridge (`bridge/bridge.ts`)
 * serves those calls over that context instead of the runner's.
 */
import type { BridgeSurface } from "./host-bridge.js";
import type { HookCommandContext } from "../contract/types.js";

/**
 * How many returned commands' contexts stay usable. In the agent a command's context lives on after
 * the command returns: work the command started (a sub-agent run, compact's onComplete) finishes
 * there and keeps calling it. Bounded, so a module starting a command per second holds at most this
 * many; all end with the sandbox (the session's end, `dispose`).
 */
export const RETURNED_KEPT = 16;

/** The contexts of the commands running in one sandbox, each with what was built over it (once). */
export class ScopedContexts<T> {
  readonly #open = new Map<number, { ctx: HookCommandContext; built?: T }>();
  /** The last RETURNED_KEPT contexts whose command returned: still served, posts and calls alike, as in the agent. */
  readonly #returned = new Map<number, { ctx: HookCommandContext; built?: T }>();
  #next = 1;

  /** Hold `ctx` for a command about to run; returns the number its calls carry. */
  open(ctx: HookCommandContext): number {
    const id = this.#next++;
    this.#open.set(id, { ctx });
    return id;
  }

  /** The command returned: its context stays reachable among the last RETURNED_KEPT returned. */
  close(id: number): void {
    const scope = this.#open.get(id);
    this.#open.delete(id);
    if (!scope) return;
    this.#returned.set(id, scope);
    if (this.#returned.size > RETURNED_KEPT) this.#returned.delete(this.#returned.keys().next().value!);
  }

  /** Whether `id` names a command's context still served (running, or among the last returned). */
  has(id: number): boolean {
    return this.#open.has(id) || this.#returned.has(id);
  }

  /** What `build` made over the context held under `id`; `method` names the call in the refusal. */
  target(id: number, method: string, build: (ctx: HookCommandContext) => T): T {
    const scope = this.#open.get(id) ?? this.#returned.get(id);
    if (!scope) throw new Error(`the context this command was given is no longer served (${method} was called after ${RETURNED_KEPT} later commands returned)`);
    return (scope.built ??= build(scope.ctx));
  }
}

/** The bridge's surface: what only the runner has from `base`, everything a context carries from `ctx`, read at call time. */
export function scopedSurface(base: Pick<BridgeSurface, "sendMessage" | "appendEntry" | "log" | "cwd" | "getFlag" | "agent" | "busEmit">, ctx: HookCommandContext): BridgeSurface {
  return {
    getFlag: base.getFlag,
    agent: base.agent,
    ...(base.busEmit ? { busEmit: base.busEmit } : {}),
    sendMessage: base.sendMessage,
    appendEntry: base.appendEntry,
    log: base.log,
    cwd: base.cwd,
    ui: () => ctx.ui,
    sessionManager: ctx.sessionManager,
    modelRegistry: ctx.modelRegistry,
    isIdle: () => ctx.isIdle(),
    hasQueuedMessages: () => ctx.hasQueuedMessages(),
    abort: () => ctx.abort(),
    waitForIdle: () => ctx.waitForIdle(),
    newSession: (options) => ctx.newSession(options),
    branch: (entryId) => ctx.branch(entryId),
    navigateTree: (targetId, options) => ctx.navigateTree(targetId, options),
  };
}
