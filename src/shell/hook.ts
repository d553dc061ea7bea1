/**
 * The shell-hook adapter: a discovered executable that is not a JS/TS module becomes a
 * `LoadedHook` whose in-process handler runs the file in a child process, never in the host.
 * `pre` hooks handle `tool_call`, `post` hooks `tool_result`, for their tool (or every tool: `*`).
 */
import { accessSync, constants } from "node:fs";
import { Errors, type HookFailure } from "../contract/errors.js";
import type { HandlerFn, LoadedHook } from "../runner/hook.js";
import { interpretPost, interpretPre, shellHookInput } from "./protocol.js";
import { runShellHook } from "./run.js";
import { childEnv } from "../../worker/child-env.mjs";
import { DEFAULTS } from "../../worker/wire.mjs";

/** Options of the shell-hook adapter (`shellHooks: { … }`). */
export interface ShellHookOptions {
  /** Largest stdout, and largest stderr, a run may write, in bytes. Default 1 MiB. */
  maxOutputBytes?: number;
  /** Environment of each run. Default: a copy of the host's. */
  env?: Record<string, string | undefined>;
}

/** What one shell hook needs to run: its deadlines per event, in ms. */
export interface ShellHookSettings extends ShellHookOptions {
  /** The project folder: each run's working directory unless the event's context says otherwise. */
  cwd: string;
  /** Deadline of one run for an event (`tool_call` / `tool_result`), in ms. */
  deadline(event: "tool_call" | "tool_result"): number;
}

/** A load failure when the file cannot run as a command (not executable), or undefined. */
export function checkShellHook(path: string): HookFailure | undefined {
  try {
    accessSync(path, constants.X_OK);
    return undefined;
  } catch {
    return Errors.loadFailed(path, `${path} is a shell hook but is not executable: run \`chmod +x ${path}\` (shell hooks run as commands, with a #! line)`);
  }
}

/** One shell hook file: its path, whether it runs before (`pre`) or after (`post`) a tool, and for which tool (`*`: every tool). */
export interface ShellHookFile {
  path: string;
  type: "pre" | "post";
  tool: string;
}

/** A `LoadedHook` that runs `item.path` as a command hook. */
export function shellHook(item: ShellHookFile, settings: ShellHookSettings): LoadedHook {
  const event = item.type === "pre" ? "tool_call" : "tool_result";
  const interpret = item.type === "pre" ? interpretPre : interpretPost;
  const handler: HandlerFn = async (raw, rawCtx) => {
    const e = raw as Record<string, unknown>;
    if (item.tool !== "*" && e.toolName !== item.tool) return undefined;
    const cwd = (rawCtx as { cwd?: string } | undefined)?.cwd ?? settings.cwd;
    const input = JSON.stringify(shellHookInput(e, cwd));
    const outcome = await runShellHook(item.path, input, {
      cwd,
      env: childEnv([
        ...Object.entries(settings.env ?? process.env),
        ["HOOKBOX_EVENT", event],
        ["HOOKBOX_TOOL_NAME", String(e.toolName)],
        ["HOOKBOX_TOOL_CALL_ID", String(e.toolCallId)],
      ]),
      timeoutMs: settings.deadline(event),
      maxOutputBytes: settings.maxOutputBytes ?? DEFAULTS.shellOutputBytes,
    });
    return interpret(item.path, outcome);
  };
  const ignore = () => {};
  return {
    path: item.path,
    resolvedPath: item.path,
    handlers: new Map([[event, [handler]]]),
    messageRenderers: new Map(),
    commands: new Map(),
    setSendMessageHandler: ignore,
    setAppendEntryHandler: ignore,
  };
}
