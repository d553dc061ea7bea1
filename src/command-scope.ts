/**
 * A command handler called with a context the caller built (`command.handler(args, ctx)`) uses
 * that context, as in the original: its `ui`, `newSession`, `sessionManager`… While the command
 * runs, the context is held here under a number the worker's command context sends with each of
 * its calls (`scoped.call`, `scoped.post`, `scoped.sync`), and those calls go to a bridge over that context instead of the runner's.
 */
import { z } from "zod";
import { Errors } from "./errors.js";
import type { BridgeSurface } from "./bridge/host-bridge.js";
import type { BridgeHost } from "./sandbox/channel.js";
import type { HookSandbox } from "./sandbox/sandbox.js";
import type { HookCommandContext } from "./types.js";
import { METHOD } from "../worker/wire.mjs";

interface Scope { ctx: HookCommandContext; bridge?: BridgeHost }
const open = new WeakMap<HookSandbox, Map<number, Scope>>();
let nextScope = 1;

/** Hold `ctx` for a command about to run in `sandbox`; returns the number its calls carry. */
export function openScope(sandbox: HookSandbox, ctx: HookCommandContext): number {
  let scopes = open.get(sandbox);
  if (!scopes) open.set(sandbox, (scopes = new Map()));
  const id = nextScope++;
  scopes.set(id, { ctx });
  return id;
}

/** The command returned: its context is no longer reachable. */
export function closeScope(sandbox: HookSandbox, id: number): void {
  open.get(sandbox)?.delete(id);
}

/** The runner's surface with everything a context carries taken from `ctx`. */
export function scopedSurface(base: BridgeSurface, ctx: HookCommandContext): BridgeSurface {
  return {
    ...base,
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

const scopedArgs = z.tuple([z.number().int(), z.string(), z.array(z.unknown())]);

/**
 * `bridge`, plus the `scoped.*` methods: `[scope, method, args]` runs `method` on the bridge built
 * by `bridgeFor` over that scope's context (built once per scope).
 */
export function withScopes(bridge: BridgeHost, sandbox: HookSandbox, hookPath: string, bridgeFor: (ctx: HookCommandContext) => BridgeHost): BridgeHost {
  const target = (args: unknown[]): [BridgeHost, string, unknown[]] => {
    const parsed = scopedArgs.safeParse(args);
    if (!parsed.success) throw Errors.protocolViolation(hookPath, "bad arguments to a command context call");
    const [id, method, rest] = parsed.data;
    const scope = open.get(sandbox)?.get(id);
    if (!scope) throw new Error(`the context this command was given is no longer open (${method} was called after the command returned)`);
    scope.bridge ??= bridgeFor(scope.ctx);
    return [scope.bridge, method, rest];
  };
  return {
    call: (method, args) => {
      if (method !== METHOD.scopedCall) return bridge.call(method, args);
      try {
        const [b, m, a] = target(args);
        return b.call(m, a);
      } catch (err) {
        return Promise.reject(err);
      }
    },
    post: (method, args) => {
      if (method !== METHOD.scopedPost) return bridge.post(method, args);
      const [b, m, a] = target(args);
      b.post(m, a);
    },
    sync: (method, args) => {
      if (method !== METHOD.scopedSync) return bridge.sync(method, args);
      const [b, m, a] = target(args);
      return b.sync(m, a);
    },
  };
}
