/**
 * Per-hook confinement policy: what a hook may read, write, run, see and reach. Three presets, named
 * for what they protect: `trusted` (the original's access; crash containment only), `confined` (the
 * default of `loadHooks`: Node's permission model, a seat belt against mistakes, not a wall) and
 * `untrusted` (the OS sandbox: it implies `isolation: "sandbox"`). See the README's threat table.
 */
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { childEnv } from "../../worker/child-env.mjs";
import { EFFECTS, allows } from "../../worker/effects.mjs";
import { hookReads, importRoots } from "./read-grants.js";
import { dependencyDir, insideResolved, requiredDependencyDir } from "./paths.js";

export { importRoots };

/** One program `pi.exec` may run, and what its arguments may be. */
export interface ExecRule {
  /** A name looked up on the host's PATH (`"git"`), or an absolute path the hook must give exactly. */
  command: string;
  /**
   * What each argument may be: an exact string, or a RegExp the whole argument must match. Omitted:
   * any arguments (for git that includes `-c alias.x=!sh`, i.e. any shell command).
   */
  args?: Array<string | RegExp>;
}

export interface ExecPolicy {
  /**
   * What `pi.exec` may run; `"*"` for anything. A string is a rule with any arguments: `["git"]`
   * lets the hook run the host's `git` with any arguments, which includes shell commands through
   * `-c alias.x=!cmd`; bound the arguments with `{ command: "git", args: [...] }`.
   */
  allow: Array<string | ExecRule> | "*";
  /** Deadline of one run, in ms. Default 30000. */
  timeoutMs?: number;
  /** stdout and stderr are each cut to this many bytes. Default 1 MiB. */
  maxOutputBytes?: number;
}

export interface Policy {
  /** Switch Node's permission model on in the worker. `false` means no file, process or worker restriction. */
  permissionModel: boolean;
  /** Extra paths the hook may read (folders include everything below them). */
  fsRead: string[];
  /** Paths the hook may write. */
  fsWrite: string[];
  /** Whether the hook may start child processes itself (`child_process`). `pi.exec` is governed by `exec`. */
  childProcess: boolean;
  /** Environment variables passed to the hook besides `SAFE_ENV`; secret-looking names only pass when listed here; `"*"` passes everything. */
  env: string[];
  /** What `pi.exec` may run (through the host, recorded). */
  exec: ExecPolicy;
  /**
   * The hook must run in `isolation: "sandbox"`; asking for a weaker isolation with it fails the
   * load. True in the `untrusted` preset.
   */
  sandbox: boolean;
  /** What the hook may reach over the network. Enforced only by the sandbox: a non-empty list implies `isolation: "sandbox"`. */
  network: NetworkPolicy;
  /** Which of the offered host modules (the `hostModules` option) the hook may import; absent or `"*"`: all. `[]` in the `untrusted` preset. */
  hostModules?: string[] | "*";
  /**
   * What `ctx.modelRegistry` answers (src/bridge/model-registry-gate.ts): `"read"` the lookups only (`getAll`,
   * `getAvailable`, `find`, `isUsingOAuth`, `getError`; models without their `headers`), `"keys"` those
   * and `getApiKey` / `getApiKeyForProvider`, `"all"` every method of the host's registry, mutating
   * ones (`setApiKey`, `refresh`) included, as the original. Absent: `"read"`; `"all"` in `trusted`.
   */
  modelRegistry?: ModelRegistryAccess;
  /**
   * Inside an agent (hookbox/extension, src/bridge/agent-gate.ts): `"read"` lets the hook read the
   * agent (`pi.getSessionName()`, `ctx.getContextUsage()`…) and draw on its screen
   * (`ctx.ui.setWidget`, `setTitle`); `"write"` also lets it change the agent (`pi.sendUserMessage`,
   * `setSessionName`, `setLabel`, `setActiveTools`, `setModel`, `setThinkingLevel`, `ctx.compact`;
   * `ctx.shutdown` only stops it, a restrict effect `effects` decides). Absent: `"write"` when `effects` is `"substitute"`, else `"read"`. Every setter
   * changes the agent (a substitute effect): `"write"` with `effects` below `"substitute"` is refused
   * (`PolicyError`), so `effects` is the one field that says how far a hook may change the agent.
   */
  agent?: "read" | "write";
  /**
   * The highest class of effect the hook may have on the agent (worker/effects.mjs), each result
   * field, in-place edit and agent member classed once (src/contract/events.ts,
   * worker/extension-members.mjs): `"observe"` (nothing changes), `"restrict"` (the agent does
   * less: a block, a cancel, a subset of the context; "it may say no, never something else") or
   * `"substitute"` (the agent does or reads something else: an edited input, a rewritten result,
   * an added message). What is above the grant is never applied: a tool call is blocked, any other
   * event keeps the agent's value, each reported as `effect_refused`. `"substitute"` in `trusted`
   * and `confined`, `"restrict"` in `untrusted`.
   */
  effects: Effect;
  /**
   * How the lines the module writes itself (`console`, `process.stdout` / `process.stderr`,
   * `pi.logger`) are passed on (to `onLog`; inside an agent, to its stderr): `"text"` through the
   * terminal-text gate (every control sequence removed but SGR colours, tabs kept) and, inside an
   * agent, each line prefixed with the module's name; `"raw"` as written, escapes included (an OSC
   * 777 desktop notification, but also OSC 52, which writes the clipboard), with no prefix, as in
   * the agent's own process. Writing escapes to the person's terminal is a capability: `"raw"` in
   * `trusted` only, `"text"` in `confined` and `untrusted`.
   */
  terminal: TerminalAccess;
}

/** How a module's own output lines reach a terminal (`policy.terminal`). */
export type TerminalAccess = "text" | "raw";
/** The values of `policy.terminal`, strictest first. */
export const TERMINAL_ACCESS = ["text", "raw"] as const satisfies readonly TerminalAccess[];

/** A class of effect on the agent, lowest first (`policy.effects`). */
export type Effect = (typeof EFFECTS)[number];
export { EFFECTS };

/** What a hook may ask of the host's model registry (`policy.modelRegistry`). */
export type ModelRegistryAccess = "read" | "keys" | "all";

export interface NetworkPolicy {
  /**
   * `host:port` pairs reachable from inside the sandbox through hookbox's host-side proxy (exact
   * match, DNS resolved on the host). Empty (the default): no network at all inside the sandbox.
   */
  allow: string[];
}

/** Variables every hook sees (when set in the host). */
export const SAFE_ENV = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "NODE_ENV", "COLORTERM", "NO_COLOR", "FORCE_COLOR"] as const;
/** Names that look like secrets: never passed unless listed in `policy.env` by exact name. */
export const SECRET_NAME = /(_KEY|_TOKEN|_SECRET)$|PASSWORD|^(AWS|GITHUB|OPENAI|ANTHROPIC)_/i;

const seatBelt = { permissionModel: true, fsRead: [], fsWrite: [], childProcess: false, env: [], exec: { allow: [] }, sandbox: false, network: { allow: [] }, modelRegistry: "read", effects: "substitute", terminal: "text" } satisfies Policy;

export const presets = {
  /** Like the original in-process hooks: everything allowed, the host's whole environment. Crash containment only. */
  trusted: { permissionModel: false, fsRead: [], fsWrite: [], childProcess: true, env: ["*"], exec: { allow: "*" }, sandbox: false, network: { allow: [] }, modelRegistry: "all", effects: "substitute", terminal: "raw" } satisfies Policy,
  /**
   * For your own hooks (the default of `loadHooks`): Node's permission model on, no child processes,
   * a clean environment, no exec. A seat belt against mistakes, not a wall: the network is open.
   */
  confined: seatBelt,
  /**
   * For hooks you did not write (project-level hooks by default): the seat belt inside the OS sandbox,
   * no network, no host modules, a model registry without keys or mutating methods, and effects on
   * the agent that only restrict it: it may say no, never something else.
   */
  untrusted: { ...seatBelt, sandbox: true, hostModules: [] as string[], agent: "read", effects: "restrict" } satisfies Policy,
} as const;

/** A preset name. */
export type PolicyName = keyof typeof presets;
/** A preset name, or a partial policy merged over `confined`. */
export type PolicyOption = PolicyName | Partial<Omit<Policy, "exec" | "network">> & { exec?: Partial<ExecPolicy>; network?: Partial<NetworkPolicy> };

/** The policy of `loadHooks` when none is given. */
export const DEFAULT_POLICY: PolicyName = "confined";

export function resolvePolicy(option: PolicyOption | undefined): Policy {
  if (option === undefined) return presets[DEFAULT_POLICY];
  if (typeof option === "string") {
    if (!Object.hasOwn(presets, option)) throw new PolicyError(`unknown policy preset "${option}"; use one of ${Object.keys(presets).map((n) => `"${n}"`).join(", ")}, or a partial policy`);
    return presets[option];
  }
  const base = presets[DEFAULT_POLICY];
  const policy: Policy = { ...base, ...option, exec: { ...base.exec, ...option.exec }, network: { ...base.network, ...option.network } };
  if (policy.agent === "write" && !allows(policy.effects, "substitute")) {
    throw new PolicyError(`policy.agent "write" changes the agent (a substitute effect), which policy.effects "${policy.effects}" does not grant; ` +
      `drop policy.agent (it follows policy.effects), or set policy.effects: "substitute"`);
  }
  return policy;
}

/** What `policy.agent` is for `policy`: as given, or what its `effects` imply (`"write"` only with `"substitute"`). */
export function agentAccess(policy: Policy): "read" | "write" {
  return policy.agent ?? (allows(policy.effects, "substitute") ? "write" : "read");
}

/** True when `policy` can only be enforced by the OS sandbox. */
export function needsSandbox(policy: Policy): boolean {
  policy.network.allow.forEach(parseAllowEntry);
  return policy.sandbox || policy.network.allow.length > 0;
}

/** Isolation modes, weakest first. */
export type Isolation = "worker" | "process" | "sandbox";

/**
 * The isolation a hook runs in: the one asked for, or `sandbox` when the policy needs it. Why it
 * throws instead of picking the stronger mode: an embedder who wrote `isolation: "worker"` next to
 * an untrusted policy must learn that the two disagree, never get a silently weaker (or silently
 * different) mode.
 */
export function resolveIsolation(policy: Policy, asked: Isolation | undefined): Isolation {
  if (!needsSandbox(policy)) return asked ?? "worker";
  if (asked === undefined || asked === "sandbox") return "sandbox";
  const why = policy.sandbox ? "its policy is untrusted (the OS sandbox)" : `its policy allows network hosts (${policy.network.allow.join(", ")}), which only the sandbox enforces`;
  throw new PolicyError(`isolation "${asked}" was asked for, but ${why}: it needs isolation "sandbox". ` +
    `Drop the isolation option (the policy implies "sandbox"), or give the hook a policy that does not need the sandbox ("confined", the seat belt, or "trusted").`);
}

/** A policy that cannot be honoured as asked (it disagrees with the isolation, or is malformed); the loader reports it as `load_failed`. */
export class PolicyError extends Error {
  override name = "PolicyError";
}

/** One `host:port` of `policy.network.allow`, lower-cased; throws `PolicyError` when malformed. */
export function parseAllowEntry(entry: string): { host: string; port: number } {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):(\d{1,5})$/i.exec(entry);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535) {
    throw new PolicyError(`policy.network.allow entry "${entry}" is not host:port (e.g. "api.example.com:443"); wildcards and bare hosts are not accepted`);
  }
  return { host: m[1]!.toLowerCase().replace(/^\[|\]$/g, ""), port };
}

/** The environment a hook's worker gets: the host's own entries the policy allows, in a null-prototype object (worker/child-env.mjs). */
export function hookEnv(policy: Policy, hostEnv: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const everything = policy.env.includes("*");
  return childEnv(Object.entries(hostEnv).filter(([name]) => {
    const named = policy.env.includes(name);
    const safe = (SAFE_ENV as readonly string[]).includes(name) || name.startsWith("LC_");
    // `"*"` (the trusted preset) is the host's whole environment, as the original: secrets included.
    return everything || named || (safe && !SECRET_NAME.test(name));
  }));
}

/** What every hook worker must read: hookbox's worker runtime and its runtime dependencies. */
export const RUNTIME_READS = [fileURLToPath(new URL("../../worker/", import.meta.url)), ...["comlink", "devalue", "jiti", "zod", "undici"].map(requiredDependencyDir), ...["@sinclair/typebox"].flatMap((name) => dependencyDir(name) ?? [])];

/**
 * `execArgv` for a hook's worker under `policy`. Never `--allow-worker` (a nested Worker with
 * `execArgv: []` escapes). `walkRoots`: check the roots for links leading out (./read-grants.ts;
 * off inside the sandbox, where a link leads only to what is bound). `factsDir`: where what the
 * walks found is remembered across starts (./link-walk.ts). Throws `ReadRefusal`.
 */
export function permissionArgs(policy: Policy, resolvedPath: string, flag: string, walkRoots = true, factsDir?: string): string[] | undefined {
  if (!policy.permissionModel) return undefined;
  // Why no cache folder: transforms are the host's (src/transform/cache.ts); a hook writes only what its policy names.
  const reads = [...RUNTIME_READS, ...hookReads(resolvedPath, { readable: [...RUNTIME_READS, ...policy.fsRead], walkRoots, factsDir }), ...policy.fsRead];
  const writes = policy.fsWrite;
  const args = [flag, "--no-warnings"];
  // Why distinct grants, not distinct paths: Node 20 aborts the whole process when one folder is granted twice ("dir" and "dir/" both become dir/*).
  for (const g of new Set(reads.map(grant))) args.push(`--allow-fs-read=${g}`);
  for (const g of new Set(writes.map(grant))) args.push(`--allow-fs-write=${g}`);
  if (policy.childProcess) args.push("--allow-child-process");
  return args;
}

/**
 * The first path `permissionArgs` would let the hook read or write that is `dir` or a folder above
 * it, or undefined. The host's transform cache must be out of every hook's reach.
 */
export function grantReaching(policy: Policy, resolvedPath: string, dir: string): string | undefined {
  if (!policy.permissionModel) return undefined;
  const grants = [...RUNTIME_READS, ...importRoots(resolvedPath), ...policy.fsRead, ...policy.fsWrite];
  return grants.find((g) => insideResolved(g, dir));
}

/** A folder is granted with everything below it (`dir/*`); a file as is. */
function grant(p: string): string {
  return extname(p) && !p.endsWith("/") ? p : `${p.replace(/\/+$/, "")}/*`;
}

/**
 * Why `pi.exec(command, args)` is refused under `policy`, or undefined when it may run. A command
 * with a `/` runs only when that exact absolute path is allowed; a name is looked up on the host's
 * PATH by the caller, never on the hook's.
 */
export function execRefusal(policy: Policy, command: string, args: readonly string[] = []): string | undefined {
  const { allow } = policy.exec;
  if (allow === "*") return undefined;
  if (allow.length === 0) return `pi.exec is not allowed for this hook (policy.exec.allow is empty); allow "${command}" in its policy to run it`;
  if (command.includes("/") && !command.startsWith("/")) {
    return `pi.exec("${command}") names a relative path; only names found on the host's PATH, or absolute paths listed in policy.exec.allow, run`;
  }
  const rules = allow.map((r) => (typeof r === "string" ? { command: r } : r));
  const rule = rules.find((r) => r.command === command);
  if (!rule) return `pi.exec("${command}") is not in this hook's policy (allowed: ${rules.map((r) => r.command).join(", ")})`;
  if (!rule.args) return undefined;
  const bad = args.find((a) => !rule.args!.some((p) => (typeof p === "string" ? p === a : wholeMatch(p, a))));
  return bad === undefined ? undefined : `pi.exec("${command}") was given the argument ${JSON.stringify(bad)}, which this hook's policy does not allow`;
}

function wholeMatch(pattern: RegExp, value: string): boolean {
  const m = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, "")).exec(value);
  return m !== null && m.index === 0 && m[0].length === value.length;
}
