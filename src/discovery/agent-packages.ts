/**
 * What an agent's own package names resolve to for an extension it loads in its process, so that
 * the same module isolated imports the same thing (loaded afresh in its own runtime: nothing of the
 * agent's process crosses). oh-my-pi (18.2.3, `src/extensibility/plugins/legacy-pi-compat.ts`)
 * rewrites an extension's imports of `@oh-my-pi/*`, `@mariozechner/*` and `@earendil-works/*`
 * `pi-*` packages to its own copy: the roots of `pi-ai`, `pi-coding-agent` and `pi-tui` to its
 * compatibility shims (`src/extensibility/legacy-pi-*-shim.ts`, which add `serializeConversation`,
 * the bundled `getModel`…), `typebox` and `@sinclair/typebox` to `legacy-typebox.ts`, and every
 * other name (a subpath after its remaps) to `@oh-my-pi/<package>` as its own folder resolves it.
 * Its npm bundle serves the same files compiled in; here they are read from its installed sources.
 *
 * The answer is a table of jiti aliases (a name, or a prefix ending in `/`, to a file or folder)
 * and the folders the hook's runtime loads natively (Bun loads oh-my-pi's TypeScript itself;
 * jiti evaluating it fails). worker/entry.mjs applies them to every file of the module it evaluates.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { below } from "../gates/inside.js";
import { ancestors } from "../policy/paths.js";
import { packageFolder } from "../policy/import-graph.js";
import type { AgentModules } from "../contract/protocol.js";
import { OMP_PACKAGE, PI_PACKAGE } from "./agents.js";

const OMP_SCOPES = ["oh-my-pi", "mariozechner", "earendil-works"] as const;
const OMP_PACKAGES = ["pi-agent-core", "pi-ai", "pi-coding-agent", "pi-natives", "pi-tui", "pi-utils"] as const;
/** The package roots oh-my-pi serves through a shim, in `src/extensibility/` of its package. */
const OMP_ROOT_SHIMS: Readonly<Record<string, string>> = { "pi-ai": "legacy-pi-ai-shim.ts", "pi-coding-agent": "legacy-pi-coding-agent-shim.ts", "pi-tui": "legacy-pi-tui-shim.ts" };
/** Its `PI_SUBPATH_REMAPS`: an upstream subpath to the one it has (a trailing `/`: the subtree). */
const OMP_SUBPATH_REMAPS: ReadonlyArray<readonly [string, string]> = [["pi-ai/utils/oauth", "pi-ai/oauth"], ["pi-ai/utils/oauth/", "pi-ai/oauth/"], ["pi-ai/compat", "pi-ai"]];

type ExportTarget = string | { import?: unknown; default?: unknown } | null | undefined;

/** The file an `exports` entry gives under the `import` condition, as a path in the package. */
function importTarget(target: ExportTarget): string | undefined {
  if (typeof target === "string") return target;
  if (target && typeof target === "object") {
    const value = target.import ?? target.default;
    return typeof value === "string" ? value : undefined;
  }
  return undefined;
}

/** The folder of `@oh-my-pi/<name>` as oh-my-pi's package resolves it (its own folder, or a `node_modules` above). */
function packageDir(ompRoot: string, name: string): string | undefined {
  return name === "pi-coding-agent" ? ompRoot : packageFolder(ompRoot, `@oh-my-pi/${name}`)?.real;
}

/**
 * The aliases of one package of oh-my-pi's, under the name `prefix` (`@scope/pi-ai`): each exact
 * export, then each `./dir/*` export as a folder prefix (jiti resolves the rest there, adding `.ts`
 * or `/index.ts`, as the package's `./src/*.ts` patterns do). Exact names come first: jiti tries
 * aliases with more `/` first, in insertion order among equals.
 */
function packageAliases(prefix: string, dir: string): { exact: Record<string, string>; folders: Record<string, string> } {
  const exact: Record<string, string> = {};
  const folders: Record<string, string> = {};
  let exports: Record<string, ExportTarget> = {};
  try {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { exports?: Record<string, ExportTarget>; main?: string };
    exports = manifest.exports ?? (manifest.main ? { ".": manifest.main } : {});
  } catch { /* no manifest: nothing to alias */ }
  for (const [key, value] of Object.entries(exports)) {
    const target = importTarget(value);
    if (!target || !key.startsWith(".")) continue;
    if (!key.includes("*")) { exact[prefix + key.slice(1)] = join(dir, target); continue; }
    // `./x/*` → `./src/x/*.ts`: the folder; `./*.js` patterns are the same files under another name.
    const star = /^\.((?:\/[^*]+)?)\/\*$/.exec(key);
    const into = /^(\.\/(?:[^*]*\/)?)\*\.[a-z]+$/.exec(target);
    if (star && into) folders[`${prefix}${star[1]}/`] = join(dir, into[1]!).replace(/\/?$/, "/");
  }
  return { exact, folders };
}

/**
 * The table for the oh-my-pi whose package is `ompRoot` (`…/node_modules/@oh-my-pi/pi-coding-agent`),
 * or undefined when its shims are not there (another layout: the hook's imports resolve as before).
 */
export function ompAgentModules(ompRoot: string): AgentModules | undefined {
  const shims = join(ompRoot, "src", "extensibility");
  if (!Object.values(OMP_ROOT_SHIMS).every((file) => existsSync(join(shims, file)))) return undefined;
  const exact: Record<string, string> = {};
  const folders: Record<string, string> = {};
  const roots = new Set<string>();
  for (const name of OMP_PACKAGES) {
    const dir = packageDir(ompRoot, name);
    if (!dir) continue;
    roots.add(dir);
    for (const scope of OMP_SCOPES) {
      const prefix = `@${scope}/${name}`;
      const own = packageAliases(prefix, dir);
      Object.assign(exact, own.exact);
      Object.assign(folders, own.folders);
      const shim = OMP_ROOT_SHIMS[name];
      if (shim) exact[prefix] = join(shims, shim);
    }
  }
  for (const scope of OMP_SCOPES) {
    for (const [from, to] of OMP_SUBPATH_REMAPS) {
      const target = to.endsWith("/") ? folders[`@oh-my-pi/${to}`] : exact[`@oh-my-pi/${to}`];
      if (target) (to.endsWith("/") ? folders : exact)[`@${scope}/${from}`] = target;
    }
  }
  const typebox = join(shims, "legacy-typebox.ts");
  if (existsSync(typebox)) Object.assign(exact, { typebox, "@sinclair/typebox": typebox });
  const alias = { ...exact, ...folders };
  // What the hook's runtime loads natively: the top folders of the agent's packages the table points
  // into (`@oh-my-pi/pi-coding-agent/src`), not a whole package (oh-my-pi's examples are in it).
  const native = new Set<string>();
  for (const target of Object.values(alias)) {
    const root = [...roots].find((dir) => below(dir, target));
    const at = root?.lastIndexOf("node_modules/") ?? -1;
    if (root && at >= 0) native.add(`${root.slice(at + "node_modules/".length)}/${below(root, target)!.split("/")[0]}`);
  }
  return { alias, native: [...native] };
}

/** oh-my-pi's package folder when this process is oh-my-pi (its script is `argv[1]`). */
export function runningOmpRoot(argv: readonly string[] = process.argv): string | undefined {
  if (!argv[1]) return undefined;
  try {
    for (const dir of ancestors(dirname(realpathSync(argv[1])))) {
      try {
        if ((JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string }).name === OMP_PACKAGE) return dir;
      } catch { /* no package.json here */ }
    }
  } catch { /* argv[1] is not a file */ }
  return undefined;
}

let running: { table: AgentModules | undefined } | undefined;
/** The table of the oh-my-pi this process is (once per process), or undefined. */
export function runningOmpModules(): AgentModules | undefined {
  running ??= { table: ((root) => root ? ompAgentModules(root) : undefined)(runningOmpRoot()) };
  return running.table;
}

/**
 * pi's table (0.73.1, `getAliases` in `dist/core/extensions/loader.js`): pi's jiti resolves its own
 * packages, `pi-coding-agent`, `pi-agent-core`, `pi-tui`, `pi-ai` (and `pi-ai/oauth`) of the
 * `@mariozechner` scope, and `typebox` (also as `@sinclair/typebox`), to its own copies, whatever the
 * extension's folder holds: a published extension names them as peer dependencies and has no copy
 * of its own. The same names, resolved from pi's package folder `piRoot`, for the isolated module
 * (loaded afresh in its worker). Undefined when pi's files are not there (another layout).
 */
export function piAgentModules(piRoot: string): AgentModules | undefined {
  const index = join(piRoot, "dist", "index.js");
  if (!existsSync(index)) return undefined;
  // pi resolves them as ES modules (`import.meta.resolve`): the `import` export of each package, found above pi's folder.
  const resolve = (name: string, sub: string): string | undefined => {
    const folder = packageFolder(piRoot, name);
    if (!folder) return undefined;
    try {
      const manifest = JSON.parse(readFileSync(join(folder.real, "package.json"), "utf8")) as { exports?: Record<string, ExportTarget> | string; main?: string };
      const exports = typeof manifest.exports === "string" ? { ".": manifest.exports } : manifest.exports;
      const target = exports ? importTarget(exports[sub]) : sub === "." ? manifest.main : undefined;
      return target ? join(folder.real, target) : undefined;
    } catch {
      return undefined;
    }
  };
  const alias: Record<string, string> = { [PI_PACKAGE]: index };
  for (const [name, pkg, sub] of [
    ["@mariozechner/pi-agent-core", "@mariozechner/pi-agent-core", "."], ["@mariozechner/pi-tui", "@mariozechner/pi-tui", "."],
    ["@mariozechner/pi-ai", "@mariozechner/pi-ai", "."], ["@mariozechner/pi-ai/oauth", "@mariozechner/pi-ai", "./oauth"],
    ["typebox", "typebox", "."], ["typebox/compile", "typebox", "./compile"], ["typebox/value", "typebox", "./value"],
    ["@sinclair/typebox", "typebox", "."], ["@sinclair/typebox/compile", "typebox", "./compile"], ["@sinclair/typebox/value", "typebox", "./value"],
  ] as const) {
    const target = resolve(pkg, sub);
    if (target) alias[name] = target;
  }
  return { alias, native: [] };
}

let runningPi: { table: AgentModules | undefined } | undefined;
/** The table of the pi this process is (its main script in pi's package; once per process), or undefined. */
export function runningPiModules(argv: readonly string[] = process.argv): AgentModules | undefined {
  if (runningPi) return runningPi.table;
  let root: string | undefined;
  try {
    for (const dir of argv[1] ? ancestors(dirname(realpathSync(argv[1]))) : []) {
      try {
        if ((JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string }).name === PI_PACKAGE) { root = dir; break; }
      } catch { /* no package.json here */ }
    }
  } catch { /* argv[1] is not a file */ }
  runningPi = { table: root ? piAgentModules(root) : undefined };
  return runningPi.table;
}
