/**
 * Every module's `before_agent_start` message reaches the model through `isolate()`, as when the
 * agent loads the modules itself. pi 0.73.1 and oh-my-pi 18.2.3 keep every extension's message, in
 * order, and chain the system prompt through each; hookbox's HookRunner keeps the contract's first
 * message (its own emit is unchanged), and inside the agent runs by the agent's rule
 * (src/contract/events.ts `agentRule`). Three copies of one module under three names, each adding a
 * message and a line of the system prompt naming its file, loaded natively (the control: what the
 * model reads) and through one `isolate()`; the model's first request is compared.
 */
import { copyFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/host.js";
import { agentUnavailable, installBun, installOmp, installPi, ompAgent, piAgent, piWorld, runAgent, type Agent, type PiRun, type PiWorld } from "./support/pi-agent.js";

const unavailable = agentUnavailable("pi");
if (unavailable) console.log(`test/e2e-pi-context-messages.test.ts skipped: ${unavailable}`);

const FIXTURE = join(ROOT, "fixtures", "extensions", "adds-a-context-message.ts");
const NAMES = ["first-note", "second-note", "third-note"];

/** The three modules in the world's project, each a copy of the fixture under its own name. */
function modules(world: PiWorld): string[] {
  return NAMES.map((name) => {
    const file = join(world.project, `${name}.ts`);
    copyFileSync(FIXTURE, file);
    return file;
  });
}

/** The one-line file a user passes with -e: `export default isolate([...], options)`. */
function isolateFile(world: PiWorld, paths: string[], options: Record<string, unknown>): string {
  const file = join(world.project, "isolated.ts");
  writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify(paths)}, ${JSON.stringify(options)});\n`);
  return file;
}

/** What the model's first request carries of the modules: the messages' names and the system prompt's, each in order. */
function seen(run: PiRun): { messages: string[]; systemPrompt: string[] } {
  const first = run.requests.find((r) => r.url.endsWith("/chat/completions"))?.body.messages ?? [];
  const system = JSON.stringify(first.filter((m) => m.role === "system" || m.role === "developer"));
  const rest = JSON.stringify(first.filter((m) => m.role !== "system" && m.role !== "developer"));
  return {
    messages: [...rest.matchAll(/CONTEXT-FROM ([a-z-]+)/g)].map((m) => m[1]!),
    systemPrompt: [...system.matchAll(/PROMPT-FROM ([a-z-]+)/g)].map((m) => m[1]!),
  };
}

function differential(agent: () => Agent): void {
  it("three modules each adding a message: the model's first request carries every message, in module order, and the system prompt chained through each, as loaded natively", () => {
    const nativeWorld = piWorld(agent());
    const native = runAgent(agent(), nativeWorld, { command: "echo hi", extensions: modules(nativeWorld) });
    expect(native.code, native.stderr).toBe(0);
    expect(seen(native)).toEqual({ messages: NAMES, systemPrompt: NAMES });

    const world = piWorld(agent());
    const run = runAgent(agent(), world, { command: "echo hi", extensions: [isolateFile(world, modules(world), { policy: "trusted" })] });
    expect(run.code, run.stderr).toBe(0);
    expect(seen(run)).toEqual(seen(native));
  });

  it("the next start, which mirrors the modules from the record of this one while they load (src/extension/early-start.ts), carries every message in order too", () => {
    const world = piWorld(agent());
    const file = isolateFile(world, modules(world), { policy: "trusted", transformCacheDir: join(world.home, "hookbox-cache") });
    const records = () => readdirSync(join(world.home, "hookbox-cache", "starts")).filter((f) => f.endsWith(".json"));
    for (const start of ["first", "next"]) {
      const run = runAgent(agent(), world, { command: "echo hi", extensions: [file] });
      expect(run.code, `${start}: ${run.stderr}`).toBe(0);
      expect(seen(run), start).toEqual({ messages: NAMES, systemPrompt: NAMES });
      // Each module's record of this start, which the next start mirrors.
      expect(records(), start).toHaveLength(NAMES.length);
    }
  });

  it("a module that registers its handler after load (at session_start) adds its message in its place, as loaded natively: the agent's handlers for the messages grow while it emits", () => {
    const late = (world: PiWorld) => {
      const file = join(world.project, "late-note.ts");
      writeFileSync(file, `export default function (pi: any): void {\n  pi.on("session_start", () => { pi.on("before_agent_start", () => ({ message: { customType: "context-note", content: "CONTEXT-FROM late-note", display: false } })); });\n}\n`);
      return file;
    };
    const order = (world: PiWorld) => { const [a, b, c] = modules(world); return [a!, late(world), b!, c!]; };
    const nativeWorld = piWorld(agent());
    const native = runAgent(agent(), nativeWorld, { command: "echo hi", extensions: order(nativeWorld) });
    expect(native.code, native.stderr).toBe(0);
    expect(seen(native).messages).toEqual(["first-note", "late-note", "second-note", "third-note"]);
    const world = piWorld(agent());
    const run = runAgent(agent(), world, { command: "echo hi", extensions: [isolateFile(world, order(world), { policy: "trusted" })] });
    expect(run.code, run.stderr).toBe(0);
    expect(seen(run)).toEqual(seen(native));
  });

  it("a module that throws: its message is missing, the others' are kept in order, and its error is reported", () => {
    const world = piWorld(agent());
    const paths = modules(world);
    const throwing = join(world.project, "throws-note.ts");
    writeFileSync(throwing, `export default function (pi: any): void {\n  pi.on("before_agent_start", () => { throw new Error("note failed"); });\n}\n`);
    const run = runAgent(agent(), world, { command: "echo hi", extensions: [isolateFile(world, [paths[0]!, throwing, paths[1]!, paths[2]!], { policy: "trusted" })] });
    expect(run.code, run.stderr).toBe(0);
    expect(seen(run)).toEqual({ messages: NAMES, systemPrompt: NAMES });
    expect(run.stderr).toContain(`hookbox: ${throwing}: handler_threw in before_agent_start: note failed`);
  });
}

describe.skipIf(unavailable !== undefined)("pi 0.73.1: every isolated module's before_agent_start message reaches the model", { timeout: 180_000 }, () => {
  let pi: Agent;
  beforeAll(() => { pi = piAgent(installPi()); }, 300_000);
  differential(() => pi);
});

describe.skipIf(unavailable !== undefined)("oh-my-pi 18.2.3: every isolated module's before_agent_start message reaches the model", { timeout: 180_000 }, () => {
  let omp: Agent;
  beforeAll(() => { omp = ompAgent(installOmp(), installBun()); }, 600_000);
  differential(() => omp);
});
