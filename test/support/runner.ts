/** Test support: load fixtures into a real runner, collect HookErrors, dispose afterwards. */
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import { createSessionManager, HookRunner, loadHooks, type HookError, type LoadOptions, type RunnerInitOptions } from "../../src/index.js";

export const fixture = (rel: string) => fileURLToPath(new URL(`../../fixtures/${rel}`, import.meta.url));

import { IN_PROCESS, ISOLATION } from "./isolation.js";
export { IN_PROCESS, ISOLATION };

const live: HookRunner[] = [];
afterEach(async () => {
  await Promise.all(live.splice(0).map((r) => r.dispose()));
});

export interface Started {
  runner: HookRunner;
  errors: HookError[];
  loadErrors: Awaited<ReturnType<typeof loadHooks>>["errors"];
  sent: unknown[];
  entries: unknown[];
}

/** Load `fixtures/<rel>` files with `options`, build and initialize a runner; disposed after the test. */
export async function start(rels: string[], options: LoadOptions = {}, init: Partial<RunnerInitOptions> = {}, sessionManager: object = {}): Promise<Started> {
  const { hooks, errors: loadErrors } = await loadHooks(rels.map(fixture), process.cwd(), { unresponsiveMs: 500, isolation: ISOLATION, ...options });
  if (loadErrors.length > 0 && !options.perHook) throw new Error(`fixtures failed to load: ${JSON.stringify(loadErrors)}`);
  const runner = new HookRunner(hooks, process.cwd(), { ...createSessionManager(), ...sessionManager } as never, {} as never);
  live.push(runner);
  const errors: HookError[] = [];
  const sent: unknown[] = [];
  const entries: unknown[] = [];
  runner.onError((e) => errors.push(e));
  runner.initialize({
    getModel: () => undefined,
    sendMessageHandler: (m) => { sent.push(m); },
    appendEntryHandler: (t, d) => { entries.push([t, d]); },
    ...init,
  });
  return { runner, errors, loadErrors, sent, entries };
}

/** Wait until `check` is true, polling; fails the test after `ms`. */
export async function until(check: () => boolean, ms = 5_000, what = "condition"): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const toolCall = (command = "ls", toolCallId = "c1") =>
  ({ type: "tool_call" as const, toolName: "bash", toolCallId, input: { command } });
export const turnStart = () => ({ type: "turn_start" as const, turnIndex: 0, timestamp: Date.now() });
