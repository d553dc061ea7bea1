/**
 * The sandbox of an approved project hook with its grants (src/policy/grants.ts), and what the
 * sandbox refused it, seen from outside so a script that hides its errors (`2>/dev/null`) cannot
 * hide them:
 *
 * - **Writes.** The project is mounted as an overlay whose upper layer is a private tmpfs (64 MiB),
 *   made in a user and mount namespace of its own before bwrap starts (`unshare -Urm`, the
 *   kernel's unprivileged overlayfs). The hook writes as if the project were writable; what it
 *   wrote outside its grants stays in the layer, is listed when it ends, and is discarded. A
 *   granted folder or tool target is bound from the real project over the layer: those writes are
 *   real. Where the overlay cannot be made (no unprivileged user namespaces for `unshare`, an old
 *   kernel), the project is bound read-only as before and a refused write is found only by its
 *   message on the hook's stderr ("Read-only file system"): a hidden one is then not seen.
 * - **Names git or an agent takes up** (src/policy/planted.ts). What a granted folder holds under
 *   one (`.git`, `.claude`, `CLAUDE.md`, …) is bound read-only over itself; what the hook made under
 *   one is removed once it ended (`planted`), and its run fails.
 * - **Programs.** bash's `command_not_found_handle`, exported to the hook's shell, records the
 *   name of a program not on the sandbox's PATH (in the layer, bounded). A `#!/bin/sh` (dash)
 *   script has no such hook: its missing programs are found by `hookbox trust`'s reading only.
 * - **Network.** With a `network:` grant the hook runs behind hookbox's proxy (src/net/proxy.ts),
 *   which records every host it was refused; without one it has no network at all.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { below, inside } from "../gates/inside.js";
import { runtimeFiles, type Bind, type SandboxSpec } from "../isolation/bubblewrap/bwrap.js";
import { removeInside } from "../isolation/bubblewrap/confined-remove.js";
import { startNetProxy, sandboxNetSpec, netExecArgv, type NetProxy } from "../net/proxy.js";
import { grantedFolder, type Grant } from "../policy/grants.js";
import { readOnlyEntries, removePlantedIn, takenUp, takenUpEntries, WalkTooLarge } from "../policy/planted.js";
import { findOnPath } from "../policy/runtime.js";
import { launcherEnv } from "../../worker/child-env.mjs";

/** Something the sandbox refused the hook, and the grant that would allow it (when one can). */
export interface SandboxRefusal {
  kind: "write" | "exec" | "network";
  /** The path (project-relative), program or host:port. */
  what: string;
  grant?: string;
  /** Why no grant can allow it. */
  why?: string;
}

export interface GrantedSandbox {
  spec: SandboxSpec;
  /** The argv that runs `argv` in it (behind the network bridge when the hook has hosts). */
  argv(argv: string[]): string[];
  /** After the run: what was refused. `stderr`: the hook's, read where the overlay could not be made. */
  refusals(stderr: string): SandboxRefusal[];
  /** Grants that could not be given on this call, with why (a tool target that is not a project file). */
  notGiven: string[];
  /**
   * After the run (its processes gone): what it made in a granted folder under a name git or an
   * agent takes up (src/policy/planted.ts), project-relative, now removed (`left`: what could not
   * be); `tooLarge`: a granted folder over the walk's bound.
   */
  planted(): { removed: string[]; left: string[]; tooLarge?: string };
  /** Before the run: a granted folder too large to walk (the hook must not run), why. */
  tooLarge?: string;
  /** After a run that exited 95: true when it was the recording layer that could not be made (the hook did not run). */
  layerFailed(): boolean;
  close(): Promise<void>;
}

export interface SandboxBase {
  project: string;
  /** The project without hookbox claude's read-only views on it, when it has any (the recording layer's lower layer). */
  projectSource?: string;
  systemReads: string[];
  path: string;
  memoryMb: number;
  env: Record<string, string | undefined>;
}

/** The upper layer's size: what a hook may write in a run that is then discarded. */
const LAYER_MB = 64;
/** Where the record of programs not found is, inside the sandbox. */
const REPORT_DIR = "/run/hookbox-report";
const MISSING_MAX_BYTES = 4096;
const TOOL_TARGET_FIELDS = ["file_path", "notebook_path"];

/** Why a marker file: the hook's own exit 95 must not be taken for a layer that could not be made. */
const LAYER_SCRIPT = [
  'P=$1 D=$2 S=$3; shift 3',
  'fail() { : > "$D/no-layer"; exit 95; }',
  // S: the project as read below its read-only views, if hookbox claude's namespace put any on it (an overlay's lower layer may not hold mounts).
  'mount --rbind "$S" "$D/real" 2>/dev/null || fail',
  `mount -t tmpfs -o size=${LAYER_MB}m,mode=700 hookbox "$D/layer" 2>/dev/null || fail`,
  'mkdir "$D/layer/up" "$D/layer/work" "$D/layer/report" || fail',
  'mount -t overlay hookbox -o "lowerdir=$D/real,upperdir=$D/layer/up,workdir=$D/layer/work" "$P" 2>/dev/null || fail',
  '"$@"; rc=$?',
  '(cd "$D/layer/up" && find . -mindepth 1 -printf "%y %P\\n" | head -n 200) > "$D/written" 2>/dev/null',
  `head -c ${MISSING_MAX_BYTES} "$D/layer/report/missing" > "$D/missing" 2>/dev/null`,
  'exit $rc',
].join("\n");

let layerWorks: boolean | undefined;
/** Whether the overlay can be made here (checked once per process by making one; tests skip on it, the router tries it instead). */
export function recordingLayerAvailable(): boolean {
  if (layerWorks !== undefined) return layerWorks;
  const d = mkdtempSync(join(tmpdir(), "hookbox-layer-probe-"));
  try {
    for (const sub of ["p", "real", "layer"]) mkdirSync(join(d, sub));
    execFileSync("unshare", ["-Urm", "/bin/sh", "-c", LAYER_SCRIPT, "sh", join(d, "p"), d, join(d, "p"), "/bin/sh", "-c", `echo x > "${join(d, "p")}/w"`], { stdio: "ignore", timeout: 10_000, env: launcherEnv() });
    layerWorks = readFileSync(join(d, "written"), "utf8").includes("f w") && !existsSync(join(d, "p", "w"));
  } catch {
    layerWorks = false;
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
  return layerWorks;
}

/** The file a PostToolUse's tool just wrote, when it is a file of the project a hook may write; else why not. */
function toolTarget(project: string, event: string, input: Record<string, unknown>): { file: string } | { why: string } {
  if (event !== "PostToolUse") return { why: `write:tool-target opens the file a tool wrote, on PostToolUse only (this is ${event})` };
  const toolInput = (input.tool_input ?? {}) as Record<string, unknown>;
  const named = TOOL_TARGET_FIELDS.map((f) => toolInput[f]).find((v): v is string => typeof v === "string");
  if (!named) return { why: `the ${String(input.tool_name)} call names no file it wrote` };
  const cwd = typeof input.cwd === "string" ? input.cwd : project;
  const path = resolve(cwd, named);
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st?.isFile()) return { why: `${named} is not a regular file (a link, a folder, or gone)` };
  const real = realpathSync(path);
  const rel = below(project, real);
  if (!rel) return { why: `${named} is not a file of the project` };
  // Why refused, though the model wrote it: a formatter's rewrite of CLAUDE.md is instructions the model reads, unlabelled.
  const taken = takenUp(rel);
  if (taken) return { why: `${named} is ${taken === rel.split("/").at(-1) ? "" : `in ${taken}, `}a name git or an agent takes up (it runs code or reads instructions from it)` };
  return { file: real };
}

/** What a granted program needs bound: the program by its name and its target, its interpreter (`#!`), libraries (ldd), its package or virtualenv folder. */
export function programFiles(program: string, depth = 0): string[] {
  const real = realpathSync(program);
  const files = [program, real];
  let head = "";
  try { head = readFileSync(real).subarray(0, 256).toString("latin1"); } catch { /* unreadable: bound as it is */ }
  if (head.startsWith("#!") && depth < 3) {
    const words = head.slice(2).split("\n")[0]!.trim().split(/\s+/);
    const interp = words[0] === "/usr/bin/env" ? findOnPath(words.find((w, i) => i > 0 && !w.startsWith("-")) ?? "") : words[0];
    if (interp && existsSync(interp)) files.push(...programFiles(interp, depth + 1));
  } else if (head.startsWith("\x7fELF")) {
    try { files.push(...runtimeFiles(real).slice(1)); } catch { /* static: nothing more */ }
  }
  // A package's bin (node_modules/<pkg>/…, node_modules/@scope/<pkg>/…) needs its package whole.
  const pkg = /^(.*\/node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(real);
  if (pkg) files.push(pkg[1]!);
  // A virtualenv's interpreter needs its site-packages: the venv whole.
  const venv = dirname(dirname(program));
  if (basename(dirname(program)) === "bin" && existsSync(join(venv, "pyvenv.cfg"))) files.push(venv);
  return files;
}

/** The sandbox for one run of a project hook with `grants` on `event` (`input`: what Claude Code sent). */
export async function grantedSandbox(base: SandboxBase, grants: readonly Grant[], event: string, input: Record<string, unknown>, layer = true): Promise<GrantedSandbox> {
  const project = realpathSync(base.project);
  const dir = mkdtempSync(join(tmpdir(), "hookbox-hook-"));
  if (layer) for (const sub of ["real", "layer"]) mkdirSync(join(dir, sub));
  // Granted writes come from the real project (in the layer's namespace, `<dir>/real`), over the overlay.
  const realOf = (path: string) => (layer ? join(dir, "real", relative(project, path)) : path);
  // Where the hook sees it: below the project as the sandbox names it (its path as given, maybe through a link).
  const seen = (path: string) => join(base.project, relative(project, path));
  const notGiven: string[] = [];
  const writable: Bind[] = [];
  // What each granted folder holds under a name git or an agent takes up, before the run: bound read-only over itself.
  const takenBefore = new Map<string, Map<string, string>>();
  let tooLarge: string | undefined;
  const reads: string[] = [];
  const pathDirs: string[] = [];
  const env: Record<string, string | undefined> = { ...base.env };
  const allow: string[] = [];
  for (const grant of grants) {
    switch (grant.kind) {
      case "write":
        try {
          const folder = grantedFolder(project, grant.folder);
          writable.push({ src: realOf(folder), dest: seen(folder), writable: true });
          const before = takenUpEntries(folder);
          takenBefore.set(folder, before);
          for (const path of readOnlyEntries(folder, before)) writable.push({ src: realOf(path), dest: seen(path), writable: false });
        } catch (err) {
          if (err instanceof WalkTooLarge) tooLarge ??= err.message.replace(err.folder, relative(project, err.folder));
          else notGiven.push(`write:${grant.folder} (${(err as Error).message})`);
        }
        break;
      case "write-target": {
        const target = toolTarget(project, event, input);
        if ("file" in target) writable.push({ src: realOf(target.file), dest: seen(target.file), writable: true });
        else if (event === "PostToolUse") notGiven.push(`write:tool-target (${target.why})`);
        break;
      }
      case "exec": {
        const found = findOnPath(grant.program);
        if (!found) { notGiven.push(`exec:${grant.program} (not found on your PATH)`); break; }
        reads.push(...programFiles(found));
        pathDirs.push(dirname(found));
        break;
      }
      case "env":
        if (process.env[grant.name] !== undefined) env[grant.name] = process.env[grant.name];
        break;
      case "network":
        allow.push(`${grant.host}:${grant.port}`);
        break;
      case "effects":
        break;
    }
  }
  let proxy: NetProxy | undefined;
  const refusedHosts = new Set<string>();
  if (allow.length > 0) {
    proxy = await startNetProxy(allow, { onNet: (r) => { if (r.refused && r.host) refusedHosts.add(`${r.host}:${r.port}`); } });
    reads.push(...runtimeFiles(process.execPath), fileURLToPath(new URL("../../worker/", import.meta.url)));
  }
  const net = proxy ? sandboxNetSpec(proxy) : undefined;
  const projectBind: Bind[] = layer ? [{ src: base.project, dest: base.project, writable: true }] : [];
  const spec: SandboxSpec = {
    // A read below a system folder is visible already (and bwrap cannot bind a file into a read-only bind).
    readOnly: [...base.systemReads, ...(layer ? [] : [base.project]), ...reads.filter((r) => !base.systemReads.some((s) => inside(s, r)))],
    extraBinds: [...projectBind, ...writable, ...(layer ? [{ src: join(dir, "layer", "report"), dest: REPORT_DIR, writable: true }] : []), ...(net?.extraBinds ?? [])],
    env: { ...env, PATH: [base.path, ...new Set(pathDirs)].join(":"), ...(layer ? { "BASH_FUNC_command_not_found_handle%%": `() { printf '%s\\n' "$1" >> ${REPORT_DIR}/missing 2>/dev/null; printf 'bash: %s: command not found\\n' "$1" >&2; return 127; }` } : {}) },
    ...(net ? { extraEnv: net.extraEnv } : {}),
    chdir: base.project,
    memoryMb: base.memoryMb,
    ...(layer ? { outer: ["unshare", "-Urm", "/bin/sh", "-c", LAYER_SCRIPT, "sh", base.project, dir, base.projectSource ?? base.project] } : {}),
  };
  const granted = new Set(grants.map((g) => (g.kind === "write" ? `write:${g.folder}` : "")));
  return {
    spec,
    notGiven,
    ...(tooLarge ? { tooLarge } : {}),
    planted() {
      // The hook's processes are gone (bwrap's pid namespace ends with it); another hook's may not be: the removal is confined to the folder.
      const { removed, left, tooLarge: over } = removePlantedIn(takenBefore, removeInside);
      const named = (path: string) => relative(project, path);
      return { removed: removed.map(named), left: left.map(named), ...over ? { tooLarge: over.message.replace(over.folder, named(over.folder)) } : {} };
    },
    layerFailed: () => layer && existsSync(join(dir, "no-layer")),
    argv: (argv) => (proxy ? (() => { const n = netExecArgv(process.execPath, argv[0]!, argv.slice(1)); return [n.command, ...n.args]; })() : argv),
    refusals(stderr) {
      const out: SandboxRefusal[] = [];
      if (layer) out.push(...writesOf(project, dir, event, input, granted));
      else if (/Read-only file system/.test(stderr)) out.push({ kind: "write", what: "into the read-only project", why: "which file is not known here (the recording layer could not be made); its stderr said \"Read-only file system\"" });
      const missing = layer ? readText(join(dir, "missing")) : [...stderr.matchAll(/: ([A-Za-z0-9._+-]+): (?:command )?not found/g)].map((m) => m[1]).join("\n");
      for (const name of new Set(missing.split("\n").filter((n) => /^[A-Za-z0-9][A-Za-z0-9._+-]{0,100}$/.test(n)))) {
        out.push(findOnPath(name) ? { kind: "exec", what: name, grant: `exec:${name}` } : { kind: "exec", what: name, why: `${name} is not on your PATH either` });
      }
      for (const host of refusedHosts) out.push({ kind: "network", what: host, grant: `network:${host}` });
      return out;
    },
    async close() {
      await proxy?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const readText = (file: string) => { try { return readFileSync(file, "utf8"); } catch { return ""; } };

/** The writes the layer kept (so refused), each with the grant that would allow it. */
function writesOf(project: string, dir: string, event: string, input: Record<string, unknown>, granted: Set<string>): SandboxRefusal[] {
  const out: SandboxRefusal[] = [];
  const seen = new Set<string>();
  const target = toolTarget(project, event, input);
  for (const line of readText(join(dir, "written")).split("\n")) {
    const m = /^(\S) (.+)$/.exec(line);
    if (!m) continue;
    const [, type, rel] = m as unknown as [string, string, string];
    // A folder that exists in the project is the overlay's copy of it above a written file: not a write.
    if (type === "d" && existsSync(join(project, rel)) && statSync(join(project, rel)).isDirectory()) continue;
    const parts = rel.split("/");
    // parts[0..known) exist in the project: the first one that does not is what the hook made.
    let known = 0;
    while (known < parts.length && existsSync(join(project, ...parts.slice(0, known + 1)))) known++;
    const folder = known === parts.length ? dirname(rel) : known < parts.length - 1 || type === "d" ? parts.slice(0, known + 1).join("/") : parts.slice(0, known).join("/");
    let refusal: SandboxRefusal;
    const taken = takenUp(rel);
    if ("file" in target && join(project, rel) === target.file) refusal = { kind: "write", what: rel, grant: "write:tool-target" };
    else if (taken) refusal = { kind: "write", what: rel, why: `${taken} is where git or an agent runs code or reads instructions from; no grant opens it` };
    else if (folder === "" || folder === ".") refusal = { kind: "write", what: rel, why: "a file at the project's root: only folders are granted (write it into one)" };
    else refusal = { kind: "write", what: rel, grant: `write:${folder}` };
    if (refusal.grant && granted.has(refusal.grant)) continue;
    const key = refusal.grant ?? refusal.why ?? rel;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(refusal);
  }
  return out;
}
