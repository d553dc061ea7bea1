/** Runners over the bench fixtures, the payloads the benchmarks send, and a message counter. */
import { MessagePort, Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import { createSessionManager, HookRunner, loadHooks, type AgentMessage, type HandlerFn, type HookAPI, type LoadedHook, type LoadOptions, type ToolCallEvent } from "../../src/index.js";

export const benchFixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
export const CWD = fileURLToPath(new URL("../..", import.meta.url));

/** A small tool_call, as an agent sends it. */
export const TOOL_CALL: ToolCallEvent = { type: "tool_call", toolName: "bash", toolCallId: "call_0001", input: { command: "ls -la src" } };
/** An event no bench hook subscribes to. */
export const TURN_START = { type: "turn_start", turnIndex: 3, timestamp: 1_700_000_000_000 } as const;

/** About 1 MiB of history (as JSON): 512 messages of ~2 KiB, a few of them debug-only. */
export function history(bytes = 1 << 20): AgentMessage[] {
  const out: AgentMessage[] = [];
  const text = "lorem ipsum dolor sit amet, consectetur adipiscing elit ".repeat(36);
  for (let i = 0, size = 2; size < bytes; i++) {
    const m = i % 97 === 50
      ? { role: "custom", customType: "debug-only", content: text, display: false, timestamp: i }
      : { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text }], timestamp: i };
    size += JSON.stringify(m).length + 1;
    out.push(m as unknown as AgentMessage);
  }
  return out;
}

export function newRunner(hooks: LoadedHook[]): HookRunner {
  const runner = new HookRunner(hooks, CWD, createSessionManager(), {} as never);
  runner.initialize({ getModel: () => undefined, sendMessageHandler: () => {}, appendEntryHandler: () => {} });
  return runner;
}

/** Load `paths` in workers and build an initialized runner; throws if any hook failed to load. */
export async function loadRunner(paths: string[], options: LoadOptions = {}): Promise<HookRunner> {
  const { hooks, errors } = await loadHooks(paths, CWD, options);
  if (errors.length) throw new Error(`bench hooks failed to load: ${errors.map((e) => `${e.path}: ${e.code} ${e.error}`).join("; ")}`);
  return newRunner(hooks);
}

/** The same hook module as a hand-built, in-process LoadedHook (no worker; the runner's rules). */
export async function inProcessHook(name: string): Promise<LoadedHook> {
  const path = benchFixture(name);
  const mod = (await import(path)) as { default: (pi: HookAPI) => void };
  const handlers = new Map<string, HandlerFn[]>();
  const pi = { on: (type: string, h: HandlerFn) => { if (!handlers.has(type)) handlers.set(type, []); handlers.get(type)!.push(h); } };
  mod.default(pi as unknown as HookAPI);
  return {
    path, resolvedPath: path, handlers, messageRenderers: new Map(), commands: new Map(),
    setSendMessageHandler: () => {}, setAppendEntryHandler: () => {},
  };
}

/** Count every `postMessage` on any worker or port while `fn` runs. */
export async function countPosts<T>(fn: () => Promise<T>): Promise<[T, number]> {
  let posts = 0;
  const targets = [Worker.prototype, MessagePort.prototype] as Array<{ postMessage: (...a: unknown[]) => void }>;
  const originals = targets.map((t) => t.postMessage);
  targets.forEach((t, i) => {
    const original = originals[i]!;
    t.postMessage = function (this: unknown, ...args: unknown[]) { posts++; return original.apply(this, args); };
  });
  try {
    return [await fn(), posts];
  } finally {
    targets.forEach((t, i) => { t.postMessage = originals[i]!; });
  }
}
