/**
 * Options are checked at run time, at each entry point (`loadHooks`,
 * `discoverAndLoadHooks` with `perHook`, `new HookRunner`). A JS host or a config file can pass
 * anything: an unknown isolation, preset or key, or a wrong type throws a TypeError naming the
 * option and the closest valid value, before any hook starts. Isolation is never silently weaker.
 */
import { describe, expect, it } from "vitest";
import { createModelRegistry, createSessionManager, discoverAndLoadHooks, HookRunner, loadHooks } from "../src/index.js";
import { levenshtein } from "../src/contract/edit-distance.js";
import { presets } from "../src/policy/policy.js";
import { fixture } from "./helpers/host.js";
import { projectAndHome } from "./support/folders.js";

const probe = fixture("blocks-rm-rf");
const load = (options: unknown) => loadHooks([probe], process.cwd(), options as never);

describe("loadHooks options", () => {
  it.each([
    [{ isolation: "sandbx" }, 'loadHooks: option "isolation" is "sandbx", which is not one of "worker", "process", "sandbox"; did you mean "sandbox"?'],
    [{ isolation: "bogus-mode" }, 'loadHooks: option "isolation" is "bogus-mode", which is not one of "worker", "process", "sandbox"'],
    [{ policy: "untrustd" }, 'loadHooks: option "policy" is "untrustd", which is not one of "trusted", "confined", "untrusted"; did you mean "untrusted"?'],
    [{ isolaton: "sandbox" }, 'loadHooks: unknown option "isolaton"; did you mean "isolation"?'],
    [{ maxRestarts: "3" }, 'loadHooks: option "maxRestarts" must be a number ≥ 0 (got the string "3")'],
    [{ policy: { fsRaed: ["/etc"] } }, 'loadHooks: unknown option "policy.fsRaed"; did you mean "fsRead"?'],
    [{ policy: { network: { alow: [] } } }, 'loadHooks: unknown option "policy.network.alow"; did you mean "allow"?'],
    [{ perHook: { [probe]: { isolation: "proces" } } }, `loadHooks: option "perHook.${probe}.isolation" is "proces", which is not one of "worker", "process", "sandbox"; did you mean "process"?`],
    [{ toolCallFailure: "closd" }, 'loadHooks: option "toolCallFailure" is "closd", which is not one of "closed", "open"; did you mean "closed"?'],
    [{ onLog: "console" }, 'loadHooks: option "onLog" must be a function (got the string "console")'],
    [{ policy: { terminal: "rwa" } }, 'loadHooks: option "policy.terminal" is "rwa", which is not one of "text", "raw"; did you mean "raw"?'],
  ])("%j throws a TypeError naming the option and the closest valid value", async (options, message) => {
    const error = await load(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  });

  it("an unknown option fails before any hook starts: nothing loads in a weaker mode", async () => {
    await expect(load({ isolation: "sandbx" })).rejects.toThrow(TypeError);
  });

  it("a policy takes exactly the policy's fields: an unknown one is refused, and a value no field takes is refused at every field a preset sets", async () => {
    await expect(load({ policy: { fsRead: [], allowEverything: true } })).rejects.toThrow('loadHooks: unknown option "policy.allowEverything"');
    const fields = [...new Set(Object.values(presets).flatMap((p) => Object.keys(p)))];
    expect(fields.length).toBeGreaterThan(5);
    for (const field of fields) {
      const error = await load({ policy: { [field]: 1n } }).catch((e: unknown) => e);
      expect(error, field).toBeInstanceOf(TypeError);
      expect((error as Error).message, field).toContain(`option "policy.${field}"`);
    }
  });

  it("a young generation above 16 MB is refused with a RangeError naming the bound and why, for all hooks and per hook (16, the default, loads: below)", async () => {
    const message = "resourceLimits.maxYoungGenerationSizeMb must be at most 16: larger values can abort the whole process on Node 20 (nodejs/node#47224)";
    for (const options of [{ resourceLimits: { maxYoungGenerationSizeMb: 17 } }, { perHook: { [probe]: { resourceLimits: { maxYoungGenerationSizeMb: 17 } } } }]) {
      const error = await load(options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RangeError);
      expect((error as Error).message).toBe(message);
    }
  });

  it("every documented option is accepted", async () => {
    const { errors, hooks } = await load({
      deadlines: { default: 1000, load: Infinity }, unresponsiveMs: 3000, loadUnresponsiveMs: 10_000,
      resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 }, maxMessageBytes: 1 << 20,
      maxPostsPerSecond: 100, maxPausedMs: 1000, maxRestarts: 3, restartWindowMs: 60_000, maxLongRestarts: 5, longRestartWindowMs: 3_600_000,
      toolCallFailure: "open", transformCacheMaxBytes: 1 << 20, syncTimeoutMs: 1000, renderTimeoutMs: 100,
      onLog: () => {}, onNet: () => {}, onExec: () => {}, policy: { fsRead: ["/etc/hostname"], exec: { allow: [{ command: "git", args: ["status", /^-\w$/] }] } },
      isolation: "worker", sandboxMemoryMb: 256, hostModules: {}, perHook: { [probe]: { policy: "trusted" } },
    });
    expect(errors).toEqual([]);
    await Promise.all(hooks.map((h) => h.sandbox?.dispose()));
  });
});

describe("discoverAndLoadHooks and HookRunner options", () => {
  it("discoverAndLoadHooks refuses an unknown trust preset and an unknown key, naming the closest", async () => {
    const { cwd, home } = projectAndHome();
    await expect(discoverAndLoadHooks([], cwd, { home, trust: { project: "confind" } } as never)).rejects.toThrow('discoverAndLoadHooks: option "trust.project" is "confind", which is not one of "trusted", "confined", "untrusted"; did you mean "confined"?');
    await expect(discoverAndLoadHooks([], cwd, { home, shelHooks: true } as never)).rejects.toThrow('discoverAndLoadHooks: unknown option "shelHooks"; did you mean "shellHooks"?');
  });

  it("new HookRunner refuses an unknown option and a wrong watch type", () => {
    const make = (options: unknown) => new HookRunner([], "/repo", createSessionManager(), createModelRegistry(), options as never);
    expect(() => make({ wacth: true })).toThrow('HookRunner: unknown option "wacth"; did you mean "watch"?');
    expect(() => make({ watch: { debounce: 5 } })).toThrow('HookRunner: unknown option "watch.debounce"; did you mean "debounceMs"?');
  });
});

describe("levenshtein", () => {
  it("counts insertions, deletions and substitutions", () => {
    expect([levenshtein("sandbx", "sandbox"), levenshtein("", "abc"), levenshtein("kitten", "sitting"), levenshtein("same", "same")]).toEqual([1, 3, 3, 0]);
  });
});
