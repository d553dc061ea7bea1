/**
 * An isolated module's effects happen when they happen in pi: where pi awaits a handler (a command,
 * an event), what the handler did to the agent (sendMessage, notify, appendEntry, sendUserMessage,
 * setStatus…) is applied in order, and the handler's answer reaches pi in the same turn of the host,
 * so pi cannot move on between the two (in pi's process a command's `pi.sendUserMessage` has not
 * started its turn when pi reads the command's answer). The effects of a turn after which the
 * module keeps waiting are applied when that turn ends. And `ctx.shutdown()`, which only stops the
 * agent (a restrict effect), reaches pi under a policy that does not let a module change the agent.
 * In pi's loader and runner, in each isolation.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { isolate, type IsolateOptions } from "../src/extension/adapter.js";
import { MAX_HELD_EFFECTS } from "../src/isolation/host-calls.js";
import { ROOT } from "./helpers/host.js";
import { importPi, installPiDir } from "./support/pi-agent.js";
import { join } from "node:path";

type Any = any;
let pi: Awaited<ReturnType<typeof importPi>>;
const runners: Any[] = [];
const FIXTURE = join(ROOT, "fixtures", "extensions", "orders-its-effects.ts");

beforeAll(async () => {
  pi = await importPi(installPiDir());
  pi.initTheme("dark");
}, 300_000);

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.emit({ type: "session_shutdown", reason: "quit" });
});

/**
 * The module in pi's loader and runner, with the agent's side recorded in `log`: each effect as
 * `member:what`, and once, a turn of the host's event loop after the first effect, `macrotask`.
 */
async function inPi(factory: unknown) {
  const runtime = pi.loader.createExtensionRuntime();
  const log: string[] = [];
  let first = true;
  const effect = (what: string) => {
    log.push(what);
    if (first) { first = false; setImmediate(() => log.push("macrotask")); }
  };
  Object.assign(runtime, {
    sendMessage: (message: Any) => effect(`sendMessage:${message.content}`),
    appendEntry: (type: string) => effect(`appendEntry:${type}`),
    sendUserMessage: (content: string) => effect(`sendUserMessage:${content}`),
  });
  const extension = await pi.loader.loadExtensionFromFactory(factory, ROOT, undefined, runtime, "<ordered>");
  const runner = new pi.Runner([extension], runtime, ROOT, pi.SessionManager.inMemory(ROOT), {});
  runners.push(runner);
  const errors: Any[] = [];
  runner.onError((e: Any) => errors.push(e));
  runner.setUIContext({
    notify: (message: string) => effect(`notify:${message}`),
    setStatus: (key: string, text: string) => effect(`setStatus:${key}=${text}`),
  });
  let shutdowns = 0;
  runner.shutdownHandler = () => { shutdowns++; };
  await runner.emit({ type: "session_start", reason: "startup" });
  const run = (name: string) => runner.getCommand(name).handler("", runner.createCommandContext());
  return { runner, log, errors, run, shutdowns: () => shutdowns };
}

describe("an isolated module's effects, in order, before its answer", { timeout: 60_000 }, () => {
  it("the control: in pi's process a command's effects and its answer come in one turn, before any other", async () => {
    const { log, errors, run } = await inPi((await import(FIXTURE)).default);
    await run("effects");
    log.push("answer");
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual([]);
    expect(log).toEqual(["sendMessage:one", "notify:two", "appendEntry:three", "sendUserMessage:four", "setStatus:five=5", "answer", "macrotask"]);
  });

  /** The control's log of a command that awaits the agent's async setters (oh-my-pi's setActiveTools, setSessionName). */
  const awaitsTheAgent = ["setActiveTools:read", "setSessionName:named", "answer"];
  /**
   * `factory` given pi's API with oh-my-pi 18's setActiveTools and setSessionName: each answers a
   * promise of the change, settled later (pi's own answer nothing). What they change goes to `log`.
   */
  const asOmp = (factory: (api: Any) => unknown, log: () => string[]) => (api: Any) => {
    const later = (what: string) => new Promise<void>((resolve) => setTimeout(() => { log().push(what); resolve(); }, 150));
    api.setActiveTools = (names: string[]) => later(`setActiveTools:${names}`);
    api.setSessionName = (name: string) => later(`setSessionName:${name}`);
    return factory(api);
  };

  it("the control: in the agent's process a command that awaits the agent's async setters returns after they settled", async () => {
    let logOf: string[] = [];
    const { log, errors, run } = await inPi(asOmp((await import(FIXTURE)).default, () => logOf));
    logOf = log;
    await run("awaits-the-agent");
    log.push("answer");
    expect(errors).toEqual([]);
    expect(log).toEqual(awaitsTheAgent);
  });

  for (const isolation of ["worker", "process", "sandbox"] as const) {
    const options: IsolateOptions = { isolation, policy: "trusted" };

    it(`${isolation} isolation: a command that awaits the agent's async setters (oh-my-pi's) returns to the agent after they settled`, async () => {
      let logOf: string[] = [];
      const { log, errors, run } = await inPi(asOmp(isolate([FIXTURE], options) as (api: Any) => unknown, () => logOf));
      logOf = log;
      await run("awaits-the-agent");
      log.push("answer");
      expect(errors).toEqual([]);
      expect(log).toEqual(awaitsTheAgent);
    });

    it(`${isolation} isolation: a command's effects are applied in order, with its answer, in one turn of the host`, async () => {
      const { log, errors, run } = await inPi(isolate([FIXTURE], options));
      await run("effects");
      log.push("answer");
      await new Promise((resolve) => setImmediate(resolve));
      expect(errors).toEqual([]);
      expect(log).toEqual(["sendMessage:one", "notify:two", "appendEntry:three", "sendUserMessage:four", "setStatus:five=5", "answer", "macrotask"]);
    });

    it(`${isolation} isolation: an effect before a wait is applied when the module's turn ends, not held until its answer`, async () => {
      const { log, errors, run } = await inPi(isolate([FIXTURE], options));
      let answered = false;
      const done = run("effect-then-wait").then(() => { answered = true; });
      for (let i = 0; i < 100 && !log.includes("appendEntry:before-wait"); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(log).toContain("appendEntry:before-wait");
      expect(answered).toBe(false);
      await done;
      expect(log.filter((l) => l.startsWith("appendEntry"))).toEqual(["appendEntry:before-wait", "appendEntry:after-wait"]);
      expect(errors).toEqual([]);
    });

    it(`${isolation} isolation: a turn that makes more effects than the host holds (MAX_HELD_EFFECTS) has them applied as they come, in order`, async () => {
      const { log, errors, run } = await inPi(isolate([FIXTURE], options));
      let answered = false;
      const done = run("many-then-wait").then(() => { answered = true; });
      for (let i = 0; i < 100 && log.length < MAX_HELD_EFFECTS; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(answered).toBe(false);
      expect(log.filter((l) => l === "appendEntry:many").length).toBeGreaterThanOrEqual(MAX_HELD_EFFECTS);
      await done;
      expect(log.filter((l) => l === "appendEntry:many")).toHaveLength(1500);
      expect(errors).toEqual([]);
    });

    it(`${isolation} isolation: ctx.shutdown() (a restrict effect) reaches pi under policy.effects "restrict", where the agent may not be changed; under "observe" it is effect_refused`, async () => {
      const restrict = await inPi(isolate([FIXTURE], { isolation, policy: { effects: "restrict" } }));
      await restrict.run("quit");
      expect(restrict.errors).toEqual([]);
      expect(restrict.shutdowns()).toBe(1);
      const observe = await inPi(isolate([FIXTURE], { isolation, policy: { effects: "observe" } }));
      await expect(observe.run("quit")).rejects.toThrow('called ctx.shutdown, a restrict effect on the agent, which its policy.effects "observe" does not grant');
      expect(observe.shutdowns()).toBe(0);
      expect(observe.log.filter((l) => l.includes(": effect_refused in ctx.shutdown: "))).toHaveLength(1);
    });
  }
});
