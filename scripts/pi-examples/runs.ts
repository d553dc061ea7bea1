/**
 * The session and the two runs of one example: (A) in the agent's process (`-e example`), (B)
 * through `isolate([example], options)` (`-e isolated.ts`), each in a fresh project folder and HOME,
 * through the same scripted `--mode rpc` session; what each run leaves is its transcript and files.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { builtHookbox, piWorldIn, runPiRpc, type Agent, type PiRpcRun, type PiWorld } from "../../test/support/pi-run.js";
import { AGENTS, type AgentName } from "./agents.js";
import { SANDBOX_NEEDS, isolateOptions, optionsSource, type Isolation, type SandboxGrant } from "./grants.js";

/** The session's prompt, and the tools the model calls for it (then each extension tool: pi-netns-run.mjs). */
export const PROMPT = "Clean up the build folder.";
export const CALLS = [
  { name: "bash", arguments: { command: "rm -rf build" } },
  { name: "read", arguments: { path: "README.md" } },
  { name: "write", arguments: { path: "notes.txt", content: "written by the model\n" } },
];

/**
 * The prompts sent after `PROMPT` to an example with an `input` handler (its source subscribes to
 * `input`): `inline-bash.ts` expands the `!{…}` (running `echo`) and notifies, `input-transform.ts`
 * rewrites the `?quick ` prompt, answers "ping" itself (handled: no turn) and lets the other
 * through. Only such examples get them: each is a turn of both runs.
 */
export const INPUT_PROMPTS = ["?quick What is in !{echo differential}?", "ping"];
/** Whether the example at `path` subscribes to `input` (then its session has INPUT_PROMPTS). */
export const subscribesToInput = (path: string) => /\.on\(\s*["']input["']/.test(readFileSync(path, "utf8"));

export interface RunOptions {
  /** Whose examples (pi's when not given). */
  agent?: AgentName;
  /** B's isolation; `isolate`'s default when not given. */
  isolation?: Isolation;
  /** Change B's module: B isolates a copy of the example with this applied to its source (the control). */
  changeB?: (source: string) => string;
  /** Sandbox isolation: the grant over `untrusted` instead of the example's `SANDBOX_NEEDS` (the control). */
  grant?: SandboxGrant;
  /** Set on the second run of an example whose isolated run timed out (it runs once more, not again). */
  retried?: boolean;
  /** hookbox as built for this differential (`buildHookbox()`; built when not given): one build for every run of it. */
  hookbox?: string;
  /** A folder to write each run's observed (normalized) outcome to, as `<example>.A.json` / `.B.json`, and the raw stderr. */
  dump?: string;
}

export interface Side { run: PiRpcRun; files: Record<string, string>; world: PiWorld; extension: string }

/** A fresh world for one run: the project has a README.md and a build/ folder for the model's calls. */
function freshWorld(agent: Agent): { root: string; world: PiWorld } {
  const root = mkdtempSync(join(tmpdir(), "hookbox-differential-"));
  const world = piWorldIn(root, agent);
  writeFileSync(join(world.project, "README.md"), "# project\n\nA project for pi's examples.\n");
  mkdirSync(join(world.project, "build"));
  writeFileSync(join(world.project, "build", "keep.txt"), "built\n");
  return { root, world };
}

/** Every file under `dir` (relative path → its text, cut to 4000 characters; a folder is "<dir>"). */
function filesOf(dir: string, prefix: string, out: Record<string, string> = {}): Record<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    const key = `${prefix}/${entry.name}`;
    if (entry.isDirectory()) { out[key] = "<dir>"; filesOf(path, key, out); continue; }
    if (!entry.isFile()) { out[key] = "<other>"; continue; }
    out[key] = statSync(path).size > 65_536 ? `<${statSync(path).size} bytes>` : readFileSync(path, "utf8").slice(0, 4000);
  }
  return out;
}

/** hookbox as the package ships it, for the sources as they are now (test/support/pi-run.ts): what run B's isolated.ts imports. */
export const buildHookbox = () => builtHookbox("differential", (line) => process.stderr.write(`${line}\n`));

export async function runSide(agent: Agent, example: string, isolated: boolean, options: RunOptions & { hookbox: string }, file: string): Promise<Side> {
  const { root, world } = freshWorld(agent);
  try {
    let extension = example;
    if (isolated) {
      let module = example;
      // As a user has it: hookbox installed above isolated.ts, which has a folder of its own (as the example has).
      mkdirSync(join(root, "node_modules"));
      symlinkSync(options.hookbox, join(root, "node_modules", "hookbox"));
      if (options.changeB) {
        // A changed copy in the run's own folder (never in pi's), where pi's packages resolve as from the example.
        const scope = join(dirname(agent.cli), "..", "..");
        symlinkSync(scope, join(root, "node_modules", basename(scope)));
        mkdirSync(join(root, "changed"));
        module = join(root, "changed", basename(example));
        writeFileSync(module, options.changeB(readFileSync(example, "utf8")));
      }
      // Named as the example is (pi names an extension's commands' source after its file).
      mkdirSync(join(root, "extension"));
      extension = join(root, "extension", basename(example));
      writeFileSync(extension, `import { isolate } from "hookbox/extension";\n`
        + `export default isolate([${JSON.stringify(module)}], ${optionsSource(isolateOptions(file, options.isolation, world, options.grant ?? SANDBOX_NEEDS[file]))});\n`);
    }
    const passed = AGENTS[options.agent ?? "pi"].flag(file);
    const inputs = subscribesToInput(example) ? INPUT_PROMPTS : undefined;
    const run = await runPiRpc(agent.cli, world, { prompt: PROMPT, inputs, calls: CALLS, extensions: [], [passed]: [extension] }, agent);
    const files = { ...filesOf(world.project, "project"), ...filesOf(world.home, "home") };
    return { run, files, world, extension };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
