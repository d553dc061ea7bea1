/**
 * The host the CLI runs hooks in: real workers through `loadHooks`, a real `HookRunner` with a
 * read-only session stand-in and no UI, and collectors for what hooks report and send.
 */
import { resolve } from "node:path";
import type { HookError, HookErrorCode } from "../errors.js";
import { loadHooks, type LoadOptions } from "../loader.js";
import { HookRunner } from "../runner.js";
import type { HookMessage, ReadonlySessionManager } from "../types.js";

export interface HostOptions {
  cwd?: string;
  /** Deadline of each handler (`deadlines.default`), ms. */
  timeout?: number;
  /** Where each hook runs: a worker thread (default) or a child process. */
  isolation?: "worker" | "process";
}

export interface CliHost {
  cwd: string;
  runner: HookRunner;
  /** Hooks that failed to load, in the order given. */
  loadErrors: Array<{ path: string; error: string; code: HookErrorCode }>;
  /** Messages hooks sent with `pi.sendMessage`, in order. */
  messages: HookMessage[];
  /** HookErrors reported since the last call. */
  takeErrors(): HookError[];
  dispose(): Promise<void>;
}

/** A session with no entries, as a fresh one: every synchronous member answers. */
function emptySession(cwd: string): ReadonlySessionManager {
  return {
    getCwd: () => cwd,
    getSessionDir: () => cwd,
    getSessionId: () => "hookbox-cli",
    getSessionFile: () => undefined,
    getSessionName: () => undefined,
    getArtifactsDir: () => undefined,
    allocateArtifactPath: () => undefined,
    saveArtifact: () => undefined,
    getArtifactPath: () => undefined,
    getLeafId: () => null,
    getLeafEntry: () => undefined,
    getEntry: () => undefined,
    getLabel: () => undefined,
    getBranch: () => [],
    getHeader: () => undefined,
    getEntries: () => [],
    getTree: () => [],
    getUsageStatistics: () => undefined,
    putBlob: () => undefined,
  };
}

/** Load `paths` and build an initialized runner over the hooks that loaded. */
export async function openHost(paths: string[], options: HostOptions = {}): Promise<CliHost> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const load: LoadOptions = {};
  if (options.timeout !== undefined) load.deadlines = { default: options.timeout };
  if (options.isolation !== undefined) load.isolation = options.isolation;
  const { hooks, errors: loadErrors } = await loadHooks(paths, cwd, load);
  const runner = new HookRunner(hooks, cwd, emptySession(cwd), {});
  let pending: HookError[] = [];
  const messages: HookMessage[] = [];
  runner.onError((e) => { pending.push(e); });
  runner.initialize({
    getModel: () => undefined,
    sendMessageHandler: (message) => { messages.push(message); },
    appendEntryHandler: () => {},
  });
  return {
    cwd,
    runner,
    loadErrors,
    messages,
    takeErrors() {
      const out = pending;
      pending = [];
      return out;
    },
    dispose: () => runner.dispose(),
  };
}

/** Let faults reported between events (after a worker died) arrive. */
export function settle(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}
