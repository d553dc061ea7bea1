/**
 * loadHooks: one worker per hook module, started in parallel; the result keeps the order of
 * `paths`. A module that fails to load lands in `errors` with its code, and its worker is ended.
 * Every hook gets `policy` (default `"confined"`, the seat belt) unless `perHook` says otherwise; a
 * policy and an isolation that disagree fail that hook's load (`load_failed`), never run it weaker.
 */
import { existsSync } from "node:fs";
import { Errors, type HookErrorCode } from "./errors.js";
import type { HandlerFn, LoadedHook } from "./hook.js";
import { deadlineFor, resolveSandboxOptions, type ResolvedSandboxOptions, type SandboxOptions } from "./options.js";
import { PolicyError } from "./policy.js";
import { resolvePath } from "./paths.js";
import { HookSandbox } from "./sandbox/sandbox.js";
import { emitReplySchema, snapshotModel, type Manifest } from "./protocol.js";
import { describeIssues } from "./schemas.js";
import { closeScope, openScope } from "./command-scope.js";
import { withCallerTheme } from "./render-theme.js";
import { applyEdits, checkEdits } from "./edits.js";
import type { HookCommandContext, HookMessageRenderer, RegisteredCommand } from "./types.js";

export interface LoadHooksResult {
  hooks: LoadedHook[];
  errors: Array<{ path: string; error: string; code: HookErrorCode }>;
}

export interface LoadOptions extends SandboxOptions {
  /** Per-hook overrides, keyed by the path as given (or its absolute path). */
  perHook?: Record<string, SandboxOptions>;
}

export async function loadHooks(paths: string[], cwd: string, options: LoadOptions = {}): Promise<LoadHooksResult> {
  if ((options as { watch?: unknown }).watch !== undefined) throw new TypeError("loadHooks: `watch` is an option of the runner now: new HookRunner(hooks, cwd, sessionManager, modelRegistry, { watch: true })");
  const { perHook, ...shared } = options;
  const outcomes = await Promise.all(paths.map(async (hookPath) => {
    const resolvedPath = resolvePath(hookPath, cwd);
    if (!existsSync(resolvedPath)) {
      return { hookPath, failure: Errors.loadFailed(hookPath, `file not found: ${resolvedPath}`) };
    }
    const own = perHook?.[hookPath] ?? perHook?.[resolvedPath];
    let resolved: ResolvedSandboxOptions;
    try {
      resolved = resolveSandboxOptions({ ...shared, ...own });
    } catch (err) {
      if (err instanceof PolicyError) return { hookPath, failure: Errors.loadFailed(hookPath, err.message) };
      throw err;
    }
    const sandbox = new HookSandbox(hookPath, resolvedPath, cwd, resolved);
    const failure = await sandbox.start();
    return { hookPath, failure, sandbox };
  }));
  const result: LoadHooksResult = { hooks: [], errors: [] };
  for (const { hookPath, failure, sandbox } of outcomes) {
    if (failure) result.errors.push({ path: hookPath, error: failure.message, code: failure.code });
    else result.hooks.push(sandboxedHook(sandbox!));
  }
  return result;
}

/** A `LoadedHook` whose maps are live views of what the worker registered. */
export function sandboxedHook(sandbox: HookSandbox): LoadedHook {
  let seen: Manifest | undefined;
  let handlers = new Map<string, HandlerFn[]>();
  let commands = new Map<string, RegisteredCommand>();
  let renderers = new Map<string, HookMessageRenderer>();
  const refresh = () => {
    const m = sandbox.manifest;
    if (m === seen) return;
    seen = m;
    // Each entry runs that one handler in the worker, as calling the original's handler would.
    handlers = new Map(Object.entries(m.events).map(([type, count]) => [type,
      Array.from({ length: count }, (_, only): HandlerFn => async (event, ctx) => {
        const c = ctx as { hasUI?: boolean; cwd?: string; model?: unknown } | undefined;
        const raw = await sandbox.request({ t: "emit", event, plan: { only }, ctx: { hasUI: c?.hasUI ?? false, cwd: c?.cwd ?? sandbox.cwd, model: snapshotModel(c?.model) } },
          type, deadlineFor(sandbox.options, type));
        const reply = emitReplySchema.safeParse(raw ?? { steps: [] });
        if (!reply.success) throw Errors.protocolViolation(sandbox.hookPath, `bad ${type} reply: ${describeIssues(reply.error)}`, type);
        // In-place edits reach the event the caller passed, as calling the original's handler would.
        if (reply.data.edits) applyEdits(event as Record<string, unknown>, checkEdits(reply.data.edits).valid);
        const step = reply.data.steps[0];
        if (step && !step.ok) throw new Error(step.e?.message);
        return step?.r;
      })]));
    commands = new Map(m.commands.map((c): [string, RegisteredCommand] => [c.name, {
      ...c,
      handler: async (args: string, ctx: HookCommandContext) => {
        // The worker's command context reaches this `ctx` (its ui, newSession…), as the original's would.
        const scope = openScope(sandbox, ctx);
        try {
          await sandbox.request({ t: "command", name: c.name, args, ctx: { hasUI: ctx.hasUI, cwd: ctx.cwd, model: snapshotModel(ctx.model), scope } },
            "command", deadlineFor(sandbox.options, "command"));
        } finally {
          closeScope(sandbox, scope);
        }
      },
    }]));
    renderers = new Map(m.renderers.map((type) => [type, withCallerTheme(sandbox.renderer(type))]));
  };
  // The worker's sendMessage goes through the runner's bridge, which reads the runner's handlers.
  const ignore = () => {};
  return {
    path: sandbox.hookPath,
    resolvedPath: sandbox.resolvedPath,
    get handlers() { refresh(); return handlers; },
    get commands() { refresh(); return commands; },
    get messageRenderers() { refresh(); return renderers; },
    setSendMessageHandler: ignore,
    setAppendEntryHandler: ignore,
    sandbox,
  };
}
