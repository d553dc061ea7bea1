/**
 * Hot reload: watch each hook's file and the local files it imports, and call `runner.reload` when
 * one changes. The folders are watched (not the files), so editors that save by rename are seen;
 * changes are debounced, and a hook is never reloaded twice at once.
 */
import { existsSync, readFileSync, statSync, watch, type FSWatcher } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import type { HookError } from "../contract/errors.js";
import type { LoadedHook } from "./hook.js";

export interface WatchOptions {
  /** Quiet time after the last change before reloading, ms. Default 80. */
  debounceMs?: number;
  /** Watch only the hooks whose configured path passes; default all that run in a worker. */
  filter?: (hook: LoadedHook) => boolean;
  /** After each reload: `error` is the reported `load_failed`, or undefined when the new version runs. */
  onReload?: (hookPath: string, error: HookError | undefined) => void;
}

/** A running watcher; `close()` stops it (the runner closes its own on dispose). */
export interface HookWatcher {
  close(): void;
  /** The files watched for `hookPath` (its own file first). */
  files(hookPath: string): string[];
}

/** What the watcher needs of a runner (a `HookRunner`; structural, so this module does not import the runner). */
export interface ReloadableRunner {
  getHooks(): readonly LoadedHook[];
  reload(path: string): Promise<HookError | undefined>;
}

/**
 * Watch the hooks of `runner` (each file and the relative imports it pulls in) and reload on change.
 * `new HookRunner(…, { watch: true })` does this for the runner's own lifetime.
 */
export function watchHooks(runner: ReloadableRunner, options: WatchOptions = {}): HookWatcher {
  const debounceMs = options.debounceMs ?? 80;
  const filter = options.filter ?? ((h: LoadedHook) => Boolean(h.sandbox));
  const filesOf = new Map<string, string[]>();
  const folders = new Map<string, FSWatcher>();
  const timers = new Map<string, NodeJS.Timeout>();
  const busy = new Set<string>();
  const again = new Set<string>();
  let closed = false;

  const track = (hookPath: string, entry: string) => {
    filesOf.set(hookPath, localImports(entry));
    for (const file of filesOf.get(hookPath)!) {
      const folder = dirname(file);
      if (folders.has(folder) || !existsSync(folder)) continue;
      const w = watch(folder, { persistent: false }, (_type, name) => {
        if (name) changed(join(folder, name.toString()));
      });
      w.on("error", () => {});
      folders.set(folder, w);
    }
  };

  const changed = (file: string) => {
    if (closed) return;
    for (const [hookPath, files] of filesOf) {
      if (!files.includes(file)) continue;
      clearTimeout(timers.get(hookPath));
      timers.set(hookPath, setTimeout(() => void reload(hookPath), debounceMs));
    }
  };

  const reload = async (hookPath: string) => {
    timers.delete(hookPath);
    if (closed) return;
    if (busy.has(hookPath)) {
      again.add(hookPath);
      return;
    }
    busy.add(hookPath);
    let error: HookError | undefined;
    try {
      error = await runner.reload(hookPath);
    } catch {
      // The runner was disposed while the change was pending.
      closed = true;
    }
    busy.delete(hookPath);
    if (closed) return;
    const hook = runner.getHooks().find((h) => h.path === hookPath);
    if (hook) track(hookPath, hook.resolvedPath);
    options.onReload?.(hookPath, error);
    if (again.delete(hookPath)) void reload(hookPath);
  };

  for (const hook of runner.getHooks()) if (filter(hook)) track(hook.path, hook.resolvedPath);

  return {
    close() {
      closed = true;
      for (const t of timers.values()) clearTimeout(t);
      for (const w of folders.values()) w.close();
      folders.clear();
    },
    files: (hookPath) => [...(filesOf.get(hookPath) ?? [])],
  };
}

const IMPORT = /\b(?:import|export)\s[^'";]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|\brequire\s*\(\s*["']([^"']+)["']\s*\)|\bimport\s*["']([^"']+)["']/g;
const EXTENSIONS = [".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".json"];
const MAX_FILES = 500;

/**
 * `entry` and every file it reaches through relative imports (`./x`, `../y.js`), read statically
 * and resolved the way jiti does for TypeScript (`./x.js` may be `./x.ts`). Packages are left out.
 */
export function localImports(entry: string): string[] {
  const seen = new Set<string>([resolve(entry)]);
  const queue = [resolve(entry)];
  while (queue.length > 0 && seen.size < MAX_FILES) {
    const file = queue.shift()!;
    let source: string;
    try {
      source = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const m of source.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? m[4];
      if (!spec || !(spec.startsWith("./") || spec.startsWith("../"))) continue;
      const target = resolveLocal(join(dirname(file), spec));
      if (target && !seen.has(target) && !target.includes(`${sep}node_modules${sep}`)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return [...seen];
}

function resolveLocal(base: string): string | undefined {
  const stem = base.replace(/\.(m|c)?jsx?$/, "");
  const candidates = [base, ...EXTENSIONS.map((e) => stem + e), ...EXTENSIONS.map((e) => join(base, `index${e}`))];
  for (const c of candidates) {
    try {
      if (statSync(c).isFile()) return c;
    } catch {
      // not this one
    }
  }
  return undefined;
}
