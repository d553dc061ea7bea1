/**
 * The host objects the original accepts are accepted. A seed-shaped host (a session
 * manager with a dozen methods, a model registry `{}`) builds a runner; a method it lacks is the
 * host's set-up error, warned once at construction and when a hook calls it, and the hook gets an
 * error naming it. Runs in every isolation mode (the answer crosses the hook's channel).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HookRunner, createModelRegistry, createSessionManager } from "../src/index.js";
import { HOST_LACKS_METHOD } from "../src/bridge/host-setup.js";
import { LiveAgentContext, type AgentContext } from "../src/extension/context.js";
import { SESSION_MANAGER_METHODS } from "../src/contract/types.js";
import { SEED_SESSION_METHODS, seedSessionManager, start, track, until } from "./helpers/host.js";

interface Warned { message: string; code: unknown }
let warnings: Warned[] = [];
const onWarning = (w: Error & { code?: unknown }) => { if (w.name === "HookboxHostWarning") warnings.push({ message: w.message, code: w.code }); };
beforeEach(() => { warnings = []; process.on("warning", onWarning); });
afterEach(() => { process.off("warning", onWarning); });
/** Warnings are emitted on the next tick: wait for it. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

const init = { getModel: () => undefined, sendMessageHandler: () => {}, appendEntryHandler: () => {} };
const LACKING_SESSION = SESSION_MANAGER_METHODS.filter((m) => !(SEED_SESSION_METHODS as readonly string[]).includes(m));
const call = (object: string, method: string, catching = true) =>
  ({ type: "tool_call" as const, toolName: "probe", toolCallId: "c", input: { object, method, catch: catching } });

describe("construction", () => {
  it("a seed-shaped session manager and a registry {} are accepted, with one warning naming every method they lack", async () => {
    expect(LACKING_SESSION).toEqual(["getArtifactsDir", "allocateArtifactPath", "saveArtifact", "getArtifactPath", "getUsageStatistics", "putBlob"]);
    track(new HookRunner([], "/repo", seedSessionManager() as never, {} as never)).initialize(init);
    await settled();
    expect(warnings).toEqual([{
      code: HOST_LACKS_METHOD,
      message: "hookbox: new HookRunner: the host's objects lack sessionManager.getArtifactsDir(), sessionManager.allocateArtifactPath(), "
        + "sessionManager.saveArtifact(), sessionManager.getArtifactPath(), sessionManager.getUsageStatistics(), sessionManager.putBlob(), "
        + "modelRegistry.getAll(), modelRegistry.getAvailable(), modelRegistry.find(), modelRegistry.getApiKey(), modelRegistry.getApiKeyForProvider(), "
        + "modelRegistry.isUsingOAuth(), modelRegistry.refresh(), modelRegistry.getError(). A hook that calls one gets an error naming it; "
        + "spread createSessionManager() / createModelRegistry() from \"hookbox\" under yours to answer them.",
    }]);
    expect(HOST_LACKS_METHOD).toBe("HOOKBOX_HOST_LACKS_METHOD");
  });

  it("a full host is not warned about; a member that is not a function counts as lacking", async () => {
    track(new HookRunner([], "/repo", createSessionManager(), createModelRegistry()));
    await settled();
    expect(warnings).toEqual([]);
    track(new HookRunner([], "/repo", { ...createSessionManager(), putBlob: "blob" } as never, createModelRegistry()));
    await settled();
    expect(warnings.map((w) => w.message)).toEqual([expect.stringContaining("the host's objects lack sessionManager.putBlob(). A hook")]);
  });

  it("values the runner itself needs still throw: a session manager or registry that is not an object, getModel not a function", () => {
    expect(() => new HookRunner([], "/repo", undefined as never, {} as never))
      .toThrow(new TypeError("new HookRunner: sessionManager must be an object (the host's session manager), got undefined. Pass your session manager, or createSessionManager() from \"hookbox\"."));
    expect(() => new HookRunner([], "/repo", "sm" as never, {} as never)).toThrow(/^new HookRunner: sessionManager must be an object .*got string/);
    expect(() => new HookRunner([], "/repo", seedSessionManager() as never, null as never))
      .toThrow(new TypeError("new HookRunner: modelRegistry must be an object, got null. Pass your model registry (or {} when no hook uses one), or createModelRegistry() from \"hookbox\"."));
    const runner = track(new HookRunner([], "/repo", seedSessionManager() as never, {} as never));
    expect(() => runner.initialize({ ...init, getModel: "gpt" } as never)).toThrow(TypeError);
    expect(() => runner.initialize({ ...init, getModel: "gpt" } as never)).toThrow(/^HookRunner\.initialize: getModel\(\) is missing or not a function/);
  });
});

describe("a hook calling a method the host lacks", () => {
  it("gets an error naming the method (name HostLacksMethod, code HOOKBOX_HOST_LACKS_METHOD); the host is warned once per method, and no HookError is reported", async () => {
    const { runner, errors } = await start(["calls-session-method"], { shape: "seed" });
    await settled();
    warnings = [];
    const seen = async (object: string, method: string) => JSON.parse((await runner.emitToolCall(call(object, method)))!.reason!);
    const lacks = (object: string, method: string) => ({
      error: {
        name: "HostLacksMethod", code: "HOOKBOX_HOST_LACKS_METHOD",
        message: `ctx.${object}.${method}(): the host's ${object} has no ${method}() method (the host's set-up, not this hook's fault)`,
      },
    });
    expect(await seen("sessionManager", "getArtifactsDir")).toEqual(lacks("sessionManager", "getArtifactsDir"));
    expect(await seen("sessionManager", "getArtifactsDir")).toEqual(lacks("sessionManager", "getArtifactsDir"));
    expect(await seen("modelRegistry", "find")).toEqual(lacks("modelRegistry", "find"));
    await until(() => warnings.length >= 2, 5_000, "the warnings");
    await settled();
    const hookPath = runner.getHookPaths()[0];
    expect(warnings).toEqual([
      { code: HOST_LACKS_METHOD, message: `hookbox: hook ${hookPath} called sessionManager.getArtifactsDir(), which the host's sessionManager lacks; the hook got an error naming it` },
      { code: HOST_LACKS_METHOD, message: `hookbox: hook ${hookPath} called modelRegistry.find(), which the host's modelRegistry lacks; the hook got an error naming it` },
    ]);
    // The methods the seed-shaped host has answer as ever.
    expect(await seen("sessionManager", "getLeafId")).toEqual({ value: null });
    expect(errors).toEqual([]);
  });

  it("uncaught, it is the handler's throw (handler_threw) with the same message, as any error a host method throws", async () => {
    const { runner } = await start(["calls-session-method"], { shape: "seed" });
    const error = await runner.emitToolCall(call("sessionManager", "putBlob", false)).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "handler_threw",
      message: "ctx.sessionManager.putBlob(): the host's sessionManager has no putBlob() method (the host's set-up, not this hook's fault)",
    });
  });

  it("through hookbox/extension, a method the agent's ctx lacks is the same error", () => {
    const live = new LiveAgentContext();
    live.set({ sessionManager: { getCwd: () => "/repo" }, modelRegistry: {} } as unknown as AgentContext);
    expect(live.sessionManager.getCwd()).toBe("/repo");
    expect(() => live.sessionManager.getArtifactsDir()).toThrow(expect.objectContaining({ name: "HostLacksMethod", object: "sessionManager", method: "getArtifactsDir" }));
    expect(() => live.modelRegistry.getAll()).toThrow(expect.objectContaining({ name: "HostLacksMethod", object: "modelRegistry", method: "getAll" }));
  });
});
