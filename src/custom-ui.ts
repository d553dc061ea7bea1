/**
 * The host's side of `ctx.ui.custom(factory)` (worker/custom.mjs): the host UI's `custom()` gets a
 * factory that returns a stand-in for the worker's component, rendered synchronously through the
 * message-renderer path (so bounded by `renderTimeoutMs`, and a slow or broken component degrades
 * to empty lines with a reported `HookError`, never a hung host). The TUI's `requestRender` is the
 * only method of its `tui` a hook can reach; `done(value)` from the worker settles the call.
 */
import { z } from "zod";
import type { BridgeSurface } from "./bridge/host-bridge.js";
import { Errors } from "./errors.js";
import { withCallerTheme } from "./render-theme.js";
import type { BridgeHost } from "./sandbox/channel.js";
import type { HookSandbox } from "./sandbox/sandbox.js";
import { METHOD } from "../worker/wire.mjs";

const KEY = z.string().regex(/^custom:\d+$/);
/** `done` values that came before the host UI called the factory, at most this many kept. */
const MAX_EARLY = 64;

export function withCustomUi(bridge: BridgeHost, hookPath: string, surface: BridgeSurface, sandbox: HookSandbox): BridgeHost {
  const shown = new Map<string, { tui: unknown; done: (value: unknown) => void }>();
  const early = new Map<string, unknown>();
  const parse = <T extends z.ZodType>(schema: T, args: unknown[], what: string): z.infer<T> => {
    const r = schema.safeParse(args);
    if (!r.success) throw Errors.protocolViolation(hookPath, `bad arguments to ${what}`);
    return r.data;
  };
  return {
    call: async (method, args) => {
      if (method !== METHOD.custom) return bridge.call(method, args);
      const [key, options] = parse(z.tuple([KEY, z.record(z.string(), z.unknown())]), args, "ui.custom");
      const create = withCallerTheme(sandbox.renderer(key));
      // The original's hook UI types `custom(factory)`; the extension UI adds `options` ({ overlay }), passed on.
      const ui = surface.ui() as unknown as { custom(factory: unknown, options?: unknown): Promise<unknown> };
      try {
        return await ui.custom((tui: unknown, theme: unknown, done: (value: unknown) => void) => {
          shown.set(key, { tui, done });
          if (early.has(key)) {
            const value = early.get(key);
            early.delete(key);
            queueMicrotask(() => done(value));
          }
          const component = create({ customType: key } as never, { expanded: false }, theme as never);
          if (!component) {
            throw new Error(sandbox.options.isolation !== "worker"
              ? `ctx.ui.custom() needs synchronous rendering, which ${sandbox.options.isolation} mode does not have`
              : "ctx.ui.custom(): the hook's component could not be shown (see the reported render error)");
          }
          return component;
        }, options);
      } finally {
        shown.delete(key);
        early.delete(key);
      }
    },
    post: (method, args) => {
      if (method === METHOD.customDone) {
        const [key, value] = parse(z.tuple([KEY, z.unknown()]), args, "ui.custom.done");
        const entry = shown.get(key);
        if (entry) entry.done(value);
        else if (early.size < MAX_EARLY) early.set(key, value);
        return;
      }
      if (method === METHOD.customTui) {
        const [key] = parse(z.tuple([KEY, z.literal("requestRender")]), args, "ui.custom.tui");
        const tui = shown.get(key)?.tui as { requestRender?: () => void } | undefined;
        tui?.requestRender?.();
        return;
      }
      bridge.post(method, args);
    },
    sync: (method, args) => bridge.sync(method, args),
  };
}
