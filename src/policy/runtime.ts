/**
 * The runtimes: the host's own (Node, or Bun) and the one that runs a hook's child process in
 * process and sandbox modes (the `runtime` option; default `process.execPath` on Node, `node` on
 * PATH on Bun). Feature checks are made on the runtime that runs the hook, asked once per program:
 * Bun reports a Node version (`process.versions.node` is 24.3.0 under Bun 1.3.14) whose features
 * it does not have, the permission model first.
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants, realpathSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";
import { hostEnvValue, launcherEnv } from "../../worker/child-env.mjs";
import type { Isolation, Policy } from "./policy.js";

/** The host's Bun version when the host runs on Bun, else undefined. */
export const HOST_BUN: string | undefined = (process.versions as { bun?: string }).bun;

/** The oldest Node that runs a hook (and the oldest Bun that hosts hookbox). */
export const MIN_NODE_MAJOR = 20;
export const MIN_BUN = "1.3.7";

/** A Node program that runs a hook's child process, as it answered about itself. */
export interface ChildRuntime {
  /** Absolute, real path of the program. */
  path: string;
  /** Its `process.versions.node`. */
  node: string;
  /** Its permission model's flag: `--permission` from Node 22.13 / 23.5, `--experimental-permission` before. */
  permissionFlag: "--permission" | "--experimental-permission";
}

/** The first executable `name` on the host's PATH (that `accept`s, when given). */
export function findOnPath(name: string, accept: (path: string) => boolean = () => true): string | undefined {
  for (const dir of (hostEnvValue("PATH") ?? "/usr/bin:/bin").split(":")) {
    const p = join(dir, name);
    try { accessSync(p, constants.X_OK); } catch { continue; }
    if (accept(p)) return p;
  }
  return undefined;
}

/**
 * The default runtime on a Bun host: the first `node` on PATH that is not Bun (`bun --bun`
 * and `bun run` put a `node` that is Bun itself first on PATH).
 */
export function nodeOnPath(): string | undefined {
  const self = realpathSync(process.execPath);
  // Not this Bun, nor another copy of it: Bun's `node` shims (/tmp/bun-node-<revision>/node) are shared by
  // every copy of one revision and point at whichever copy made them first.
  return findOnPath("node", (p) => { try { const real = realpathSync(p); return real !== self && basename(real) !== basename(self); } catch { return false; } });
}

/** The permission flag of the runtime this code runs on (a Node host's worker threads, its transform thread). */
export function ownPermissionFlag(): ChildRuntime["permissionFlag"] {
  return process.allowedNodeEnvironmentFlags.has("--permission") ? "--permission" : "--experimental-permission";
}

/** What the probe prints: the runtime's own account of its versions and permission flags. */
const PROBE = `process.stdout.write(JSON.stringify({ node: process.versions.node, bun: process.versions.bun ?? null, flags: ["--permission", "--experimental-permission"].filter((f) => process.allowedNodeEnvironmentFlags.has(f)) }))`;

const known = new Map<string, ChildRuntime | string>();

/**
 * The runtime that runs process- and sandbox-mode hooks: `option` (an absolute path, or a name
 * found on the host's PATH) or the default. A string says why there is none (for `load_failed`):
 * no Node found, not Node (Bun), too old, no permission model. Asked once per program.
 */
export function childRuntime(option: string | undefined): ChildRuntime | string {
  const program = option ?? (HOST_BUN ? nodeOnPath() : process.execPath);
  if (program === undefined) {
    return `no "node" was found on PATH: on a Bun host (Bun ${HOST_BUN}) process- and sandbox-mode hooks run on Node; install Node (${MIN_NODE_MAJOR} or later) or set the "runtime" option to a node binary`;
  }
  let path: string | undefined;
  try {
    path = realpathSync(isAbsolute(program) ? program : findOnPath(program) ?? program);
    accessSync(path, constants.X_OK);
  } catch {
    return `the runtime "${program}" (option "runtime") was not found or is not executable`;
  }
  let answer = known.get(path);
  if (answer === undefined) known.set(path, (answer = probe(path)));
  return answer;
}

function probe(path: string): ChildRuntime | string {
  // The host's own Node needs no question.
  if (!HOST_BUN && path === realpathSync(process.execPath)) return { path, node: process.versions.node, permissionFlag: ownPermissionFlag() };
  let said: { node?: unknown; bun?: unknown; flags?: unknown };
  try {
    said = JSON.parse(execFileSync(path, ["-e", PROBE], { encoding: "utf8", env: launcherEnv(), timeout: 15_000, stdio: ["ignore", "pipe", "pipe"] })) as typeof said;
  } catch (err) {
    return `the runtime ${path} (option "runtime") could not be asked its version: ${(err as Error).message.split("\n")[0]}`;
  }
  if (typeof said.bun === "string") {
    return `the runtime ${path} is Bun ${said.bun}: process- and sandbox-mode hooks run on Node (Bun has no permission model); set the "runtime" option to a node binary`;
  }
  const node = typeof said.node === "string" && /^\d+\.\d+\.\d+/.test(said.node) ? said.node : undefined;
  if (!node) return `the runtime ${path} (option "runtime") did not answer as Node does`;
  if (Number(node.split(".")[0]) < MIN_NODE_MAJOR) return `the runtime ${path} is Node ${node}: hooks need Node ${MIN_NODE_MAJOR} or later`;
  const flags = Array.isArray(said.flags) ? said.flags : [];
  const permissionFlag = flags.includes("--permission") ? "--permission" : flags.includes("--experimental-permission") ? "--experimental-permission" : undefined;
  if (!permissionFlag) return `the runtime ${path} (Node ${node}) has no permission model`;
  return { path, node, permissionFlag };
}

/** What a hook asks of its runtime (src/options/options.ts's resolved options). */
export interface RuntimeAsk {
  isolation: Isolation;
  policy: Pick<Policy, "permissionModel" | "env">;
  runtime: string | undefined;
  env: Record<string, string | undefined> | undefined;
  execArgv: string[] | undefined;
}

/** What a hook runs on: its child's node (process and sandbox modes), and what the host cannot enforce (worker mode on Bun). */
export interface RuntimePlan {
  child?: ChildRuntime;
  unenforced?: readonly string[];
}

/** The limits a Bun worker thread does not enforce, as the load report, `loadHooks` warnings and `runner.stats()` say them. */
export const BUN_WORKER_UNENFORCED: readonly string[] = Object.freeze([
  "memory: resourceLimits (Bun ignores a worker's heap limits)",
  "environment: the env option (a Bun worker's process.env is the host's)",
  "output capture: the hook's stdout and stderr (a Bun worker writes to the host's streams, not onLog)",
]);

/** What `ask` asks that a Bun worker thread cannot enforce (empty: a Bun worker runs it, with BUN_WORKER_UNENFORCED said). */
function bunWorkerCannot(ask: Omit<RuntimeAsk, "isolation">): string[] {
  return [
    ...(ask.policy.permissionModel ? ["Node's permission model (file, child-process and worker limits)"] : []),
    ...(!ask.policy.env.includes("*") || ask.env ? ["a restricted environment"] : []),
    ...(ask.execArgv ? ["execArgv"] : []),
  ];
}

/**
 * The isolation of a hook on this host, from the one its policy implies (`resolved`, by
 * resolveIsolation) and whether the user named one (`asked`). On a Bun host, a hook whose user named
 * none and whose policy asks what a Bun worker cannot enforce runs in a child process on Node (the
 * `runtime`) instead of being refused: a stronger mode, said in `warning`. Named `"worker"`, it is
 * still refused by name (runtimePlan); with no Node here it stays a worker, refused with why.
 * The one place defaults are chosen (resolveSandboxOptions, for loadHooks, isolate, isolateConfig
 * and isolateDiscovered alike).
 */
export function hostIsolation(ask: Omit<RuntimeAsk, "isolation">, asked: Isolation | undefined, resolved: Isolation): { isolation: Isolation; warning?: string } {
  if (!HOST_BUN || asked !== undefined || resolved !== "worker") return { isolation: resolved };
  const cannot = bunWorkerCannot(ask);
  if (cannot.length === 0) return { isolation: resolved };
  const node = childRuntime(ask.runtime);
  if (typeof node === "string") return { isolation: resolved };
  return {
    isolation: "process",
    warning: `isolation "process" was chosen (a child process on Node ${node.node}, ${node.path}): no isolation was given, and on a Bun host (Bun ${HOST_BUN}) the default worker cannot enforce what this hook's policy asks (${cannot.join(", ")}). `
      + `Set isolation "process" to keep this without the warning, "sandbox" for the OS sandbox, or policy "trusted" for a Bun worker (${BUN_WORKER_UNENFORCED.length} limits not enforced)`,
  };
}

/**
 * How a hook of `ask` runs on this host, or why it cannot (the text of its `load_failed`). Never
 * weaker than asked: on a Bun host a worker thread runs only a policy that asks for nothing Bun
 * cannot enforce (`trusted`), and says what it does not enforce; a child process runs on Node.
 */
export function runtimePlan(ask: RuntimeAsk): RuntimePlan | string {
  if (ask.isolation === "worker") {
    if (!HOST_BUN) return {};
    const asked = bunWorkerCannot(ask);
    if (asked.length === 0) return { unenforced: BUN_WORKER_UNENFORCED };
    const node = childRuntime(ask.runtime);
    const onNode = typeof node === "string" ? `; no Node was found here (${node})` : "";
    return `isolation "worker" on a Bun host (Bun ${HOST_BUN}) cannot enforce what this hook's policy asks (${asked.join(", ")}): Bun has no permission model and a Bun worker reads the host's whole environment. Use isolation "process" or "sandbox" (the hook then runs on Node)${onNode}, or policy "trusted" (a worker, with ${BUN_WORKER_UNENFORCED.length} limits not enforced)`;
  }
  const child = childRuntime(ask.runtime);
  if (typeof child === "string") {
    return HOST_BUN ? `${child}; or use policy "trusted" with isolation "worker" (a Bun worker, with fewer limits enforced)` : child;
  }
  return { child };
}
