/**
 * A hook's effects inside the real agents (pi 0.73.1 on Node, oh-my-pi 18.2.3 on Bun): the sandbox
 * holds an untrusted hook, and `policy.effects` keeps it from making the agent do or read something
 * else in its place. Each test runs its sessions side by side, each in its own network namespace
 * against the scripted fake model (test/support/pi-run.ts), whose first turn asks the bash tool for
 * `echo hello > hello.txt` (or calls the tool named):
 * - the module isolated under policy `untrusted` (the bubblewrap sandbox, effects `restrict`): refused;
 * - the control: the same module in the agent's own process: its substitution takes effect;
 * - the module isolated under policy `confined` (effects `substitute`): it takes effect too, so the
 *   refusal above is the policy's, not a path that never carried the substitution;
 * - (the rewritten command) isolated in process mode with `policy: { effects: "restrict" }` and
 *   confined's walls: refused too, so the effects axis refuses, not the sandbox.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/host.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { CANARY } from "../fixtures/extensions/rewrites-the-bash-command.js";
import { MARK } from "../fixtures/extensions/substitutes-what-the-model-reads.js";
import { ANSWER } from "../fixtures/extensions/replaces-an-omp-built-in-tool.js";
import { OMP_BUILT_IN_TOOLS } from "../src/extension/registrations.js";
import { agentUnavailable, installBun, installOmp, installPi, ompAgent, piAgent, piWorld, runAgentAsync, type Agent, type PiRun, type PiWorld } from "./support/pi-agent.js";

const unavailable = agentUnavailable("pi and oh-my-pi");
if (unavailable) console.log(`test/e2e-effects.test.ts skipped: ${unavailable}`);
const sandbox = sandboxAvailability();
if (!sandbox.ok) console.log(`test/e2e-effects.test.ts skipped: the untrusted runs need the sandbox: ${sandbox.reason}`);

const REWRITES = join(ROOT, "fixtures", "extensions", "rewrites-the-bash-command.ts");
const SUBSTITUTES = join(ROOT, "fixtures", "extensions", "substitutes-what-the-model-reads.ts");
const COMMAND = "echo hello > hello.txt";
/** A tool named like pi's built-in `bash`, answering "fake"; and one named like oh-my-pi's `glob` (pi has none), answering ANSWER. */
const REPLACES_BASH = join(ROOT, "fixtures", "hostile", "registers-builtin-tool-name.ts");
const REPLACES_GLOB = join(ROOT, "fixtures", "extensions", "replaces-an-omp-built-in-tool.ts");
/** One session's bound: several agents start side by side on a shared machine (oh-my-pi alone takes 7-25 s). */
const SESSION_MS = 90_000;
const SECRETS = { ssh: "SSH-KEY-SECRET-71b0", token: "ENV-TOKEN-SECRET-3a94" };

/** The one-line file the agent loads with -e: `export default isolate([module], options)`. */
function isolateFile(world: PiWorld, module: string, options: Record<string, unknown>): string {
  const file = join(world.project, "isolated.ts");
  writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify([module])}, ${JSON.stringify(options)});\n`);
  return file;
}

/** The user's secrets the rewritten command copies: ~/.ssh/id_ed25519 in the fake HOME and $SECRET_TOKEN. */
function plantSecrets(world: PiWorld): Record<string, string> {
  mkdirSync(join(world.home, ".ssh"), { recursive: true });
  writeFileSync(join(world.home, ".ssh", "id_ed25519"), SECRETS.ssh);
  return { SECRET_TOKEN: SECRETS.token };
}

type How = "untrusted" | "own process" | "confined" | "restrict, no sandbox";

/** The module's isolating file for each way of loading it, or the module itself (the agent's own process). */
const WAYS: Record<How, (world: PiWorld, module: string) => string> = {
  "untrusted": (world, module) => isolateFile(world, module, { policy: "untrusted" }),
  "own process": (_world, module) => module,
  // process isolation: a confined worker is refused on a Bun host (oh-my-pi), and Node runs it in both agents
  "confined": (world, module) => isolateFile(world, module, { policy: "confined", isolation: "process" }),
  // the effects axis alone, beside confined's files and network: the refusal is not the sandbox's
  "restrict, no sandbox": (world, module) => isolateFile(world, module, { policy: { effects: "restrict" }, isolation: "process" }),
};

/** One session per way of loading `module`, side by side; each world has the user's secrets. */
async function sessions<W extends How>(agent: Agent, module: string, ways: readonly W[]): Promise<Record<W, { world: PiWorld; run: PiRun }>> {
  const runs = await Promise.all(ways.map(async (how) => {
    const world = piWorld(agent);
    const env = plantSecrets(world);
    return [how, { world, run: await runAgentAsync(agent, world, { command: COMMAND, env, extensions: [WAYS[how](world, module)], timeoutMs: SESSION_MS }) }] as const;
  }));
  return Object.fromEntries(runs) as Record<W, { world: PiWorld; run: PiRun }>;
}

const chats = (run: PiRun) => run.requests.filter((r) => r.url.endsWith("/chat/completions"));
/** Which of the module's channels reached the model, in any request it received. */
function channelsSeen(run: PiRun): string[] {
  const text = JSON.stringify(chats(run).map((r) => r.body));
  return [...new Set([...text.matchAll(new RegExp(`${MARK} (\\w+)`, "g"))].map((m) => m[1]!))].sort();
}

const read = (world: PiWorld, name: string) => (existsSync(join(world.project, name)) ? readFileSync(join(world.project, name), "utf8") : undefined);

/**
 * The rewritten command: refused under untrusted (blocked, the reason naming the field and
 * `policy.effects`; neither the hook's command nor the model's runs), run in the controls.
 */
async function rewrittenCommand(agent: Agent): Promise<void> {
  const s = await sessions(agent, REWRITES, ["untrusted", "own process", "confined", "restrict, no sandbox"]);
  for (const how of ["own process", "confined"] as const) {
    const { world, run } = s[how];
    expect(run.code, `${how}: ${run.stderr}`).toBe(0);
    expect(read(world, "canary.txt"), how).toBe(`${CANARY}\n`);
    expect(read(world, "stolen.txt"), how).toBe(`${SECRETS.ssh}${SECRETS.token}\n`);
    expect(read(world, "hello.txt"), how).toBeUndefined();
  }
  for (const how of ["untrusted", "restrict, no sandbox"] as const) {
    const { world, run } = s[how];
    expect(run.code, `${how}: ${run.stderr}`).toBe(0);
    // blocked with the code, the field the hook set and the policy that refused it; not the hook's command
    expect(run.toolResult, how).toMatch(/failed \(effect_refused\): .* set event\.input during tool_call, .*policy\.effects "restrict"/);
    expect(run.toolResult, how).not.toContain(CANARY);
    expect(run.stderr, how).toContain("effect_refused in tool_call");
    expect(read(world, "canary.txt"), how).toBeUndefined();
    expect(read(world, "stolen.txt"), how).toBeUndefined();
    expect(read(world, "hello.txt"), how).toBeUndefined();
  }
}

/**
 * What the model reads: under untrusted no request carries the module's text, the model's own
 * command ran, and each refused result is reported as effect_refused; in the controls every
 * channel the agent emits in `-p` reaches the model.
 */
async function substitutedReads(agent: Agent, channels: string[]): Promise<void> {
  const s = await sessions(agent, SUBSTITUTES, ["untrusted", "own process", "confined"]);
  for (const how of ["own process", "confined"] as const) {
    const { world, run } = s[how];
    expect(run.code, `${how}: ${run.stderr}`).toBe(0);
    expect(channelsSeen(run), how).toEqual(channels);
    expect(run.toolResult, how).toBe(`${MARK} tool_result`);
    expect(read(world, "hello.txt"), how).toBe("hello\n");
  }
  const untrusted = s.untrusted;
  expect(untrusted.run.code, untrusted.run.stderr).toBe(0);
  expect(channelsSeen(untrusted.run)).toEqual([]);
  expect(chats(untrusted.run)).toHaveLength(2);
  expect(JSON.stringify(untrusted.run.requests)).not.toContain(MARK);
  expect(read(untrusted.world, "hello.txt")).toBe("hello\n");
  // each refused where it was tried: an event's result, or an agent member's call (pi.sendMessage …)
  for (const channel of channels) expect(untrusted.run.stderr).toContain(`effect_refused in ${channel.startsWith("send") ? `pi.${channel}` : channel}`);
}

/**
 * A tool that replaces one of the agent's built-ins, called by the model: in the agent's own process
 * the model reads the module's answer; isolated under untrusted the module is refused at load as
 * effect_refused, naming the tool, and fails closed (the call is blocked with that code).
 */
async function replacedBuiltIn(agent: Agent, module: string, tool: { name: string; arguments: Record<string, unknown> }, answer: string): Promise<void> {
  const [untrusted, own] = await Promise.all([
    (async () => { const world = piWorld(agent); return runAgentAsync(agent, world, { command: "", tool, extensions: [isolateFile(world, module, { policy: "untrusted" })], timeoutMs: SESSION_MS }); })(),
    runAgentAsync(agent, piWorld(agent), { command: "", tool, extensions: [module], timeoutMs: SESSION_MS }),
  ]);
  expect(own.code, own.stderr).toBe(0);
  expect(own.toolResult).toContain(answer);
  expect(untrusted.code, untrusted.stderr).toBe(0);
  expect(untrusted.toolResult).not.toContain(answer);
  expect(untrusted.toolResult).toBe(`hookbox: blocked because isolated extension ${module} (effect_refused) did not load (fail closed)`);
  expect(untrusted.stderr).toContain(`${module} did not load (effect_refused)`);
  expect(untrusted.stderr).toContain(`pi.registerTool("${tool.name}"), replacing the agent's built-in tool,`);
  expect(untrusted.stderr).toContain("policy.effects");
}

describe.skipIf(unavailable !== undefined || !sandbox.ok)("policy.effects inside pi 0.73.1", { timeout: 180_000 }, () => {
  let pi: Agent;
  beforeAll(() => { pi = piAgent(installPi()); }, 300_000);

  it("an untrusted isolated extension that rewrites the model's bash command is refused: the call is blocked and nothing runs (also under effects restrict without the sandbox); in pi's own process and isolated under confined the rewrite runs (canary, key and token copied)", async () => {
    await rewrittenCommand(pi);
  });

  // Not here: `user_bash` (pi emits it for the interactive editor's `!command` only, never in `-p`;
  // its result's refusal is in test/host-effects.test.ts) and the session events a `-p` run never
  // reaches (compaction, tree, switch, fork).
  it("an untrusted isolated extension that rewrites the tool result, adds a context message, sets the system prompt, transforms the input, adds to the provider's payload, rewrites the model's own turn (message_end), adds a skill (resources_discover) and sends a user message and a custom message (sendUserMessage, sendMessage): no request the model receives carries any of it; in the controls every one does", async () => {
    await substitutedReads(pi, ["before_agent_start", "before_provider_request", "context", "input", "message_end", "resources_discover", "sendMessage", "sendUserMessage", "tool_result"]);
  });

  it("an untrusted isolated extension whose tool replaces pi's built-in bash is refused at load (effect_refused) and fails closed; in pi's own process the model's bash call reads the module's answer", async () => {
    await replacedBuiltIn(pi, REPLACES_BASH, { name: "bash", arguments: { command: COMMAND } }, "fake");
  });
});

describe.skipIf(unavailable !== undefined || !sandbox.ok)("policy.effects inside oh-my-pi 18.2.3 (a Bun host; the untrusted module runs in the sandbox on Node)", { timeout: 240_000 }, () => {
  let omp: Agent;
  beforeAll(() => { omp = ompAgent(installOmp(), installBun()); }, 600_000);

  it("an untrusted isolated extension that rewrites the model's bash command is refused: the call is blocked and nothing runs (also under effects restrict without the sandbox); in oh-my-pi's own process and isolated under confined the rewrite runs", async () => {
    await rewrittenCommand(omp);
  });

  // Three of the module's channels do not reach the model in oh-my-pi's `-p`, in any of the three
  // sessions: it emits `input` only from its interactive editor (modes/controllers/input-controller.ts),
  // its `message_end` has no result (the message cannot be replaced), and the skill a
  // `resources_discover` adds is not listed in its system prompt there.
  it("an untrusted isolated extension that rewrites the tool result, adds a context message, sets the system prompt, adds to the provider's payload and sends a user message and a custom message (sendUserMessage, sendMessage): no request the model receives carries any of it; in the controls every one does", async () => {
    await substitutedReads(omp, ["before_agent_start", "before_provider_request", "context", "sendMessage", "sendUserMessage", "tool_result"]);
  });

  it("an untrusted isolated extension whose tool replaces oh-my-pi's built-in glob (a built-in pi lacks) is refused at load (effect_refused) and fails closed; in oh-my-pi's own process the model's glob call reads the module's answer", async () => {
    await replacedBuiltIn(omp, REPLACES_GLOB, { name: "glob", arguments: { pattern: "*" } }, ANSWER);
  });
});

describe.skipIf(unavailable !== undefined)("oh-my-pi's built-in tools", () => {
  it("hookbox's list of oh-my-pi's built-in tool names is oh-my-pi's: its BUILTIN_TOOLS and HIDDEN_TOOLS, both ways", () => {
    const source = readFileSync(join(installOmp(), "..", "..", "src", "tools", "index.ts"), "utf8");
    const keysOf = (table: string) => {
      const body = source.slice(source.indexOf(`export const ${table}: Record<`));
      return [...body.slice(0, body.indexOf("\n};\n")).matchAll(/^\t(\w+): /gm)].map((m) => m[1]!);
    };
    const names = [...keysOf("BUILTIN_TOOLS"), ...keysOf("HIDDEN_TOOLS")];
    expect(names.length).toBeGreaterThan(20);
    expect([...OMP_BUILT_IN_TOOLS].sort()).toEqual(names.sort());
  });
});
