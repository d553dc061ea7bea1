/**
 * A loaded hook as the runner sees it. `LoadedHook` keeps the original's shape (so hand-built hooks
 * with in-process handlers still work, as the original's tests build them); a hook loaded by
 * hookbox is a `IsolatedHook` (src/runner/isolated-hook.ts): it also shows its sandbox, and its maps are
 * views of what the worker registered.
 */
import { NO_RESULTS, type EmitReply, type PlanName } from "../contract/protocol.js";
import type { SandboxView } from "../isolation/state.js";
import type {
  AppendEntryHandler, HookContext, HookMessageRenderer, RegisteredCommand, SendMessageHandler,
} from "../contract/types.js";
import type { runHandlers as RunHandlers } from "../../worker/run.mjs";
import { PLANS } from "../../worker/wire.mjs";

export type HandlerFn = (...args: unknown[]) => Promise<unknown> | unknown;

export interface LoadedHook {
  /** The path as configured. */
  path: string;
  /** The absolute path. */
  resolvedPath: string;
  handlers: Map<string, HandlerFn[]>;
  messageRenderers: Map<string, HookMessageRenderer>;
  commands: Map<string, RegisteredCommand>;
  setSendMessageHandler(handler: SendMessageHandler): void;
  setAppendEntryHandler(handler: AppendEntryHandler): void;
  /** The sandbox this hook runs in (read-only); absent for a hand-built, in-process hook. */
  readonly sandbox?: SandboxView;
  /** For an in-process hook (e.g. a shell hook): `open` lets a tool call through when it fails. Default `closed`. */
  toolCallFailure?: "closed" | "open";
  /** For an in-process hook: what `runner.dispose()` must end (e.g. running child processes). */
  dispose?(): Promise<void>;
}

/** How the runner runs one hook's handlers for one event, wherever they live. */
export interface HookUnit {
  readonly hook: LoadedHook;
  count(eventType: string): number;
  /** Run the hook's handlers of `event` under `plan`; with `only`, the one handler at that registration index. */
  run(event: Record<string, unknown> & { type: string }, plan: PlanName, ctx: HookContext, only?: number): Promise<EmitReply>;
}

/**
 * The worker's handler loop (worker/run.mjs and what it imports), loaded at the first run of an
 * in-process hook: a host whose hooks are all isolated (an agent's `isolate()`) never evaluates it.
 */
let runHandlers: typeof RunHandlers | undefined;
/** Its one import, however many first runs arrive together (why once: src/isolation/launch.ts, `childModes`). */
let runLoad: Promise<typeof RunHandlers> | undefined;

/** In-process handlers of a hand-built `LoadedHook`: trusted, no isolation, same rules. */
export function inlineUnit(hook: LoadedHook): HookUnit {
  return {
    hook,
    count: (type) => hook.handlers.get(type)?.length ?? 0,
    run: async (event, plan, ctx, only) => {
      const run = runHandlers ?? (runHandlers = await (runLoad ??= import("../../worker/run.mjs").then((m) => m.runHandlers)));
      return (await run(hook.handlers.get(event.type) ?? [], event, only === undefined ? PLANS[plan] : { ...PLANS[plan], only }, ctx)) ?? NO_RESULTS;
    },
  };
}
