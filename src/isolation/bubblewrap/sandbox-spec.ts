/**
 * What a hook's sandbox (./bwrap.ts) is made of, from its options and policy: its node and hookbox's
 * runtime, the hook's folder and the `node_modules` above it (an approved module's: the packages its
 * approval pins), its import graph file by file, all read-only (never the transform
 * cache: the host transforms, src/transform/cache.ts); the policy's extra reads read-only and its
 * writes writable; the hook's cleaned environment; the network proxy's socket when it has one
 * (./bwrap.ts hides every other proxy's wherever a granted folder would show it).
 */
import { dirname } from "node:path";
import { execCwd } from "../../bridge/exec-gate.js";
import type { SandboxNetSpec } from "../../net/proxy.js";
import type { ResolvedSandboxOptions } from "../../options/options.js";
import { RUNTIME_READS } from "../../policy/policy.js";
import { hookReads } from "../../policy/read-grants.js";
import { readOnlyEntries, takenUpEntries } from "../../policy/planted.js";
import { runtimeFiles, type SandboxSpec } from "./bwrap.js";

/**
 * `runtime`: the node that runs the hook (src/policy/runtime.ts), bound with the libraries it loads.
 * `cwd`: the host's working folder, the hook's `process.cwd()` when its policy binds it (inside
 * `policy.fsRead` / `policy.fsWrite`, as a `pi.exec` folder must be), as in process isolation;
 * otherwise the hook's own folder.
 */
export function hookSandboxSpec(options: ResolvedSandboxOptions, resolvedPath: string, runtime: string, env: Record<string, string | undefined>, net?: SandboxNetSpec, cwd?: string): SandboxSpec {
  const { policy } = options;
  const folder = dirname(resolvedPath);
  const bound = cwd === undefined ? undefined : execCwd({ sandboxed: true, reads: { folder, fsRead: policy.fsRead, fsWrite: policy.fsWrite } }, cwd);
  const links: Array<{ target: string; at: string }> = [];
  return {
    readOnly: [
      ...runtimeFiles(runtime),
      ...RUNTIME_READS,
      // Roots as named, the graph file by file; a link out of the roots fails the load (ReadRefusal).
      // An approved module's: only what its approval pins (its folder, the packages its graph reaches).
      ...hookReads(resolvedPath, { readable: [...RUNTIME_READS, ...policy.fsRead], walkRoots: false, pinnedOnly: options.approval !== undefined, links }),
      ...policy.fsRead,
    ],
    links,
    extraBinds: [...policy.fsWrite.map((src) => ({ src, writable: true })), ...options.approval ? plantedGuards(policy.fsWrite) : [], ...net?.extraBinds ?? []],
    env,
    extraEnv: net?.extraEnv,
    chdir: bound !== undefined && "cwd" in bound ? bound.cwd : folder,
    memoryMb: options.sandboxMemoryMb,
  };
}

/**
 * A project module's granted folders: what each holds under a name git or an agent takes up
 * (src/policy/planted.ts) when the sandbox starts, bound read-only over itself, after the folders.
 * Throws WalkTooLarge (the load fails, named).
 */
function plantedGuards(folders: readonly string[]): Array<{ src: string; writable: false }> {
  return folders.flatMap((folder) => readOnlyEntries(folder, takenUpEntries(folder)).map((src) => ({ src, writable: false as const })));
}

/**
 * The sandbox a `pi.exec` program runs in: the hook's own, plus /usr (the program and what it
 * loads; never /etc or home folders), in `cwd`, which src/bridge/exec-gate.ts checked lies inside
 * what the hook's sandbox binds (it is never bound itself).
 */
export function execSandboxSpec(hookSpec: SandboxSpec, cwd: string): SandboxSpec {
  return { ...hookSpec, readOnly: [...hookSpec.readOnly, "/usr"], chdir: cwd };
}

