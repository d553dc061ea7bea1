/**
 * A loaded hook as the runner sees it. `LoadedHook` keeps the original's shape (so hand-built hooks
 * with in-process handlers still work, as the original's tests build them); a hook loaded by
 * hookbox also carries its sandbox, and its maps are views of what the worker registered.
 */
import { emitReplySchema, type EmitReply, type RunPlan, type ContextSnapshot } from "./protocol.js";
import { describeIssues } from "./schemas.js";
import { Errors } from "./errors.js";
import { deadlineFor } from "./options.js";
import type { HookSandbox } from "./sandbox/sandbox.js";
import type {
  AppendEntryHandler, HookCommandContext, HookContext, HookMessageRenderer, RegisteredCommand, SendMessageHandler,
} from "./types.js";
import { runHandlers } from "../worker/run.mjs";

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
  /** The worker this hook runs in; absent for a hand-built, in-process hook. */
  sandbox?: HookSandbox;
  /** For an in-process hook (e.g. a shell hook): `open` lets a tool call through when it fails. Default `closed`. */
  toolCallFailure?: "closed" | "open";
  /** For an in-process hook: what `runner.dispose()` must end (e.g. running child processes). */
  dispose?(): Promise<void>;
}

/** How the runner runs one hook's handlers for one event, wherever they live. */
export interface HookUnit {
  readonly hook: LoadedHook;
  count(eventType: string): number;
  run(event: Record<string, unknown> & { type: string }, plan: RunPlan, ctx: HookContext, signals?: Array<[string, AbortSignal]>): Promise<EmitReply>;
  runCommand(name: string, args: string, ctx: HookCommandContext): Promise<void>;
}

/** The snapshot of a context that crosses to a worker. */
export type SnapshotOf = (ctx: HookContext) => ContextSnapshot;

/** What a worker's empty answer means: every handler ran and returned nothing. */
const NO_RESULTS: EmitReply = Object.freeze({ steps: [] }) as EmitReply;

/** In-process handlers of a hand-built `LoadedHook`: trusted, no isolation, same rules. */
export function inlineUnit(hook: LoadedHook): HookUnit {
  return {
    hook,
    count: (type) => hook.handlers.get(type)?.length ?? 0,
    run: async (event, plan, ctx) => (await runHandlers(hook.handlers.get(event.type) ?? [], event, plan, ctx)) ?? NO_RESULTS,
    runCommand: async (name, args, ctx) => {
      const command = hook.commands.get(name);
      if (!command) throw new Error(`hook ${hook.path} has no command "${name}"`);
      await command.handler(args, ctx);
    },
  };
}

/** Handlers that live in the hook's worker. */
export function sandboxUnit(hook: LoadedHook, sandbox: HookSandbox, snapshot: SnapshotOf): HookUnit {
  let sent: ContextSnapshot | undefined;
  let sentTo = -1;
  return {
    hook,
    count: (type) => sandbox.manifest.events[type] ?? 0,
    async run(event, plan, ctx, signals) {
      const body: Record<string, unknown> & { t: string } = { t: "emit", event, plan };
      // The worker keeps the last context it was sent: send it only when it changed or the worker is new.
      const snap = snapshot(ctx);
      if (snap !== sent || sandbox.generation !== sentTo) {
        body.ctx = snap;
        sent = snap;
        sentTo = sandbox.generation;
      }
      if (signals) {
        body.signals = signals.map(([field]) => field);
        // A signal that is already aborted must arrive aborted, before any handler reads it.
        const aborted = signals.filter(([, signal]) => signal.aborted).map(([field]) => field);
        if (aborted.length > 0) body.aborted = aborted;
      }
      // A request that failed may never have reached the worker: send the context again next time.
      const raw = await sandbox.request(body, event.type, deadlineFor(sandbox.options, event.type), signals)
        .catch((err: unknown) => { sent = undefined; throw err; });
      if (raw === undefined) return NO_RESULTS;
      const parsed = emitReplySchema.safeParse(raw);
      if (!parsed.success) throw Errors.protocolViolation(hook.path, `bad ${event.type} reply: ${describeIssues(parsed.error)}`);
      return parsed.data as EmitReply;
    },
    async runCommand(name, args, ctx) {
      await sandbox.request({ t: "command", name, args, ctx: snapshot(ctx) }, "command", deadlineFor(sandbox.options, "command"));
    },
  };
}
