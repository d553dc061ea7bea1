/** A command uses the context it is called with, as in the original. */
import { describe, expect, it } from "vitest";
import { createNoOpUIContext } from "../src/index.js";
import type { HookCommandContext, HookUIContext } from "../src/contract/types.js";
import { start } from "./helpers/host.js";
import { RETURNED_KEPT } from "../src/bridge/command-scope.js";

function recordingUi(who: string, log: unknown[], answer: boolean): HookUIContext {
  return {
    ...createNoOpUIContext(),
    confirm: async (title, message) => { log.push([who, "confirm", title, message]); return answer; },
    notify: (message) => { log.push([who, "notify", message]); },
    setStatus: (key, text) => { log.push([who, "setStatus", key, text]); },
  };
}

describe("command contexts", () => {
  it("a command called with a ctx its caller built uses that ctx's ui, sessionManager and newSession, not the runner's", async () => {
    const log: unknown[] = [];
    const { runner, errors } = await start(["registers-review-command"], {
      sessionManager: { getSessionFile: () => "/runner.jsonl" },
      init: {
        hasUI: true,
        uiContext: recordingUi("runner", log, false),
        newSessionHandler: async () => { log.push(["runner", "newSession"]); return { cancelled: false }; },
      },
    });
    const own = runner.createCommandContext();
    const ctx: HookCommandContext = {
      ...own,
      ui: recordingUi("caller", log, true),
      sessionManager: { ...own.sessionManager, getSessionFile: () => "/caller.jsonl" } as never,
      newSession: async (options) => {
        log.push(["caller", "newSession", options?.parentSession]);
        await options?.setup?.({ appendCustomEntry: (t: string, d: unknown) => { log.push(["caller", "setup", t, d]); } } as never);
        return { cancelled: false };
      },
    };
    await runner.getCommand("review")!.handler("pr-12", ctx);
    expect(log).toEqual([
      ["caller", "confirm", "Start review?", "pr-12"],
      ["caller", "newSession", "/caller.jsonl"],
      ["caller", "setup", "review", { args: "pr-12" }],
      ["caller", "setStatus", "review", "reviewing pr-12"],
    ]);
    expect(errors).toEqual([]);
  });

  it("a command called with the runner's own command context uses the runner's handlers", async () => {
    const log: unknown[] = [];
    const { runner } = await start(["registers-review-command"], { init: { hasUI: true, uiContext: recordingUi("runner", log, false) } });
    await runner.getCommand("review")!.handler("pr-1", runner.createCommandContext());
    expect(log).toEqual([["runner", "confirm", "Start review?", "pr-1"], ["runner", "notify", "review cancelled"]]);
  });

  it("a command's context serves posts and calls after the command returned, as in the agent (work the command started finishes there)", async () => {
    const log: unknown[] = [];
    const { runner, errors } = await start(["uses-its-command-context-after-returning"], { init: { hasUI: true, uiContext: recordingUi("runner", log, false) } });
    const own = runner.createCommandContext();
    await runner.getCommand("later")!.handler("", { ...own, ui: recordingUi("caller", log, true), waitForIdle: async () => { log.push(["caller", "waitForIdle"]); } });
    await new Promise((r) => setTimeout(r, 500));
    expect(log).toEqual([["caller", "notify", "after returning"], ["caller", "waitForIdle"], ["caller", "notify", "waited"]]);
    expect(errors).toEqual([]);
  });

  it(`a command's context is served until ${RETURNED_KEPT} later commands returned; then a call on it fails naming why`, async () => {
    const log: unknown[] = [];
    const { runner, errors } = await start(["keeps-its-command-context"], { init: { hasUI: true, uiContext: recordingUi("runner", log, false) } });
    const own = runner.createCommandContext();
    const caller = (who: string) => ({ ...own, ui: recordingUi(who, log, true), waitForIdle: async () => { log.push([who, "waitForIdle"]); } });
    const run = (name: string, who: string) => runner.getCommand(name)!.handler("", caller(who));
    await run("keep", "first");
    for (let i = 0; i < RETURNED_KEPT - 1; i++) await run("noop", "other");
    await run("use-kept", "user");
    expect(log.splice(0)).toEqual([["first", "waitForIdle"], ["user", "notify", "kept context answered"]]);
    await run("noop", "other");
    await run("use-kept", "user");
    expect(log).toEqual([["user", "notify", `kept context refused: the context this command was given is no longer served (waitForIdle was called after ${RETURNED_KEPT} later commands returned)`]]);
    expect(errors).toEqual([]);
  });
});
