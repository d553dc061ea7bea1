/**
 * Grants for pi's project extensions, end to end in the real pi 0.73.1 and oh-my-pi 18.2.3 on Bun
 * (headless, in a network namespace with only loopback, against the fake model): a logger that appends every tool call to
 * the project's `logs/tools.jsonl` (fixtures/extensions/logs-tool-calls.ts) and a context extension
 * that gives the model the project's notes (fixtures/extensions/project-notes/). One scripted
 * session, run four times in one world: pi alone (the control: both do their job in pi's process),
 * then through `isolateDiscovered()` approved with no grant (each refused, pi's stderr ending with
 * the exact `npx hookbox trust <project> --grant …` line, once), then approved with the grants
 * `hookbox trust` proposes (`--grant proposed`): the log file and every request the model received
 * are byte for byte those of the agent alone (oh-my-pi's measured wall time of a bash call aside).
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { hookbox } from "./cli-run.js";
import { agentUnavailable, installBun, installOmp, installPi, installPiDir, ompAgent, piAgent, piUnavailable, piWorld, runAgent, type Agent, type PiRun } from "./support/pi-agent.js";

const sandbox = sandboxAvailability();
const unavailable = piUnavailable() ?? (sandbox.ok ? undefined : `the sandbox is unavailable: ${sandbox.reason}`);
if (unavailable) console.log(`test/e2e-pi-grants.test.ts skipped: ${unavailable}`);
const ompUnavailable = agentUnavailable("oh-my-pi") ?? (sandbox.ok ? undefined : `the sandbox is unavailable: ${sandbox.reason}`);

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "extensions");
const NOTES = "Run the tests with npm test before you say done.";

function world(folder: ".pi" | ".omp", agent: Agent) {
  const w = piWorld(agent);
  const root = join(w.home, "..");
  const extensions = join(w.project, folder, "extensions");
  mkdirSync(extensions, { recursive: true });
  cpSync(join(FIXTURES, "logs-tool-calls.ts"), join(extensions, "tool-log.ts"));
  cpSync(join(FIXTURES, "project-notes"), join(extensions, "project-notes"), { recursive: true });
  const line = join(root, "hookbox-discovered.ts");
  writeFileSync(line, `import { isolateDiscovered } from ${JSON.stringify(join(import.meta.dirname, "..", "src", "extension.ts"))};\nexport default isolateDiscovered();\n`);
  const env = { XDG_CONFIG_HOME: join(w.home, ".config") };
  return { ...w, line, env, logger: join(extensions, "tool-log.ts"), notes: join(extensions, "project-notes", "index.ts"), log: join(w.project, "logs", "tools.jsonl") };
}

/** The scripted session: the model asks for one bash call, then answers with what it received. */
const session = { command: "echo hello" };
/** Every request the model received, as it received it (but oh-my-pi's measured wall time of the bash call, which differs run to run). */
const chats = (run: PiRun) => JSON.parse(JSON.stringify(run.requests.filter((r) => r.url.endsWith("/chat/completions")).map((r) => r.body.messages))
  .replace(/Wall time: [\d.]+ seconds/g, "Wall time: <measured> seconds")) as unknown[];

/**
 * The session alone, approved with no grant, and approved with the grants proposed, in one world:
 * `agent` started with its own discovery on (alone) or off with the one line (`isolateDiscovered`).
 */
async function differential(agent: Agent, folder: ".pi" | ".omp", origin: string) {
  const w = world(folder, agent);
  const trust = (...args: string[]) => hookbox(["trust", ...args, w.project], {
    env: { ...w.env, HOME: w.home, PI_CODING_AGENT_DIR: w.agentDir, PATH: `${join(installPiDir(), "node_modules", ".bin")}${delimiter}${process.env.PATH}` },
  });
  const isolated = () => runAgent(agent, w, { ...session, extensions: [w.line], env: w.env });

  // Control: the agent alone loads both in its process; the log is written and the notes reach the model.
  const alone = runAgent({ ...agent, quiet: agent.quiet.filter((f) => f !== "--no-extensions") }, w, { ...session, env: w.env });
  expect(alone.code, alone.stderr).toBe(0);
  const log = readFileSync(w.log, "utf8");
  expect(log).toBe(`${JSON.stringify({ tool: "bash", input: { command: "echo hello" } })}\n`);
  expect(JSON.stringify(chats(alone))).toContain(`## Project notes\\n${NOTES}`);
  expect(JSON.stringify(chats(alone))).toContain(`Reminder: ${NOTES}`);
  rmSync(join(w.project, "logs"), { recursive: true });

  // Approved with no grant: nothing is written, no note reaches the model, and the agent's stderr says what to grant, once each.
  const bare = await trust("--yes");
  expect(bare.code, bare.stderr).toBe(0);
  const refused = isolated();
  expect(refused.code, refused.stderr).toBe(0);
  expect(existsSync(w.log)).toBe(false);
  expect(JSON.stringify(chats(refused))).not.toContain(NOTES);
  const lines = refused.stderr.split("\n");
  const write = lines.filter((l) => l.startsWith(`hookbox: ${w.logger}: FileSystemWrite of ${join(w.project, "logs")}`));
  expect(write).toHaveLength(1);
  expect(write[0]!.endsWith(`Approve the module with the grant write:logs: npx hookbox trust ${w.project} --grant write:logs`)).toBe(true);
  const effects = lines.filter((l) => l.startsWith(`hookbox: ${w.notes}: effect_refused in `));
  expect(effects.map((l) => /effect_refused in (\w+)/.exec(l)![1])).toEqual(["before_agent_start", "context"]);
  for (const l of effects) expect(l.endsWith(`Approve the module with the grant effects:annotate: npx hookbox trust ${w.project} --grant effects:annotate`)).toBe(true);

  // hookbox trust proposes what each needs; --grant proposed gives it.
  const granted = await trust("--yes", "--grant", "proposed");
  expect(granted.code, granted.stderr).toBe(0);
  expect(granted.stdout).toContain(`${folder}/extensions/tool-log.ts  [not approved]\n    origin: ${origin}\n    grants: write:logs\n`);
  expect(granted.stdout).toContain(`${folder}/extensions/project-notes/index.ts  [not approved]\n    origin: ${origin}\n    grants: effects:annotate\n`);

  // Differential: the same session through hookbox writes the same log and sends the model the same requests as the agent alone.
  const same = isolated();
  expect(same.code, same.stderr).toBe(0);
  expect(readFileSync(w.log, "utf8")).toBe(log);
  expect(chats(same)).toEqual(chats(alone));
  // Nothing refused; what the context extension adds to what the model reads is said once per event.
  expect(same.stderr.split("\n").filter((l) => l.startsWith("hookbox:"))).toEqual([
    `hookbox: ${w.notes} adds context the model reads (effects:annotate): result.message, result.systemPrompt during before_agent_start, at most 4000 characters each; shown once`,
    `hookbox: ${w.notes} adds context the model reads (effects:annotate): result.messages during context, at most 4000 characters each; shown once`,
  ]);
}

const TITLE = "a logger and a context extension do their job as in the agent's own process once approved with the grants hookbox trust proposes; without them each is refused, the agent's stderr ending with the exact --grant line, once";

describe.skipIf(unavailable !== undefined)("grants for pi's project extensions, in pi 0.73.1", { timeout: 240_000 }, () => {
  let cli: string;
  beforeAll(() => { cli = installPi(); }, 300_000);
  it(TITLE, () => differential(piAgent(cli), ".pi", "pi (.pi/extensions)"));
});

describe.skipIf(ompUnavailable !== undefined)("grants for oh-my-pi's project extensions, in oh-my-pi 18.2.3 (Bun)", { timeout: 300_000 }, () => {
  let omp: Agent;
  beforeAll(() => { omp = ompAgent(installOmp(), installBun()); }, 600_000);
  it(TITLE, () => differential(omp, ".omp", "oh-my-pi (.omp/extensions)"));
});
