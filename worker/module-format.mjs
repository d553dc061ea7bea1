// Whether Node loads a file as an ES module, decided as Node 20-24 decide it from the file's name
// and the nearest package.json (checked against `node` itself: test/module-format.test.ts). Shared
// by the host's export maps (src/discovery/agent-exports.ts) and the worker's deferred agent
// packages (./agent-packages.mjs), which must agree on which files Node evaluates as ES modules.
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * The package.json that decides how Node loads the `.js` files of `dir`: the nearest one from `dir`
 * up, never one in or above a `node_modules` folder (Node stops there). One that cannot be read (a
 * folder) is not there; one that is not JSON, or is `null`, makes Node throw when it loads such a
 * file (ERR_INVALID_PACKAGE_CONFIG): `"invalid"`. Undefined when there is none.
 * @param {string} dir
 * @returns {{ manifest: string, type: "module" | "commonjs" | "invalid" } | undefined}
 */
export function packageScope(dir) {
  for (let at = dir; basename(at) !== "node_modules"; at = dirname(at)) {
    const manifest = join(at, "package.json");
    let text;
    try {
      text = readFileSync(manifest, "utf8");
    } catch {
      if (dirname(at) === at) return undefined;
      continue;
    }
    try {
      const parsed = JSON.parse(text);
      if (parsed === null) return { manifest, type: "invalid" };
      return { manifest, type: parsed.type === "module" ? "module" : "commonjs" };
    } catch {
      return { manifest, type: "invalid" };
    }
  }
  return undefined;
}

/**
 * How Node loads `file`: `.mjs` an ES module and `.cjs` CommonJS whatever the manifest says; `.js`
 * as its package scope's "type" says (CommonJS without one); `"invalid"` when that scope's
 * package.json makes Node throw. Undefined for other names. A `.js` file of a package with no
 * "type" whose syntax only an ES module has is loaded as one by Node's syntax detection (20.19+,
 * 22.7+): this reads names, not sources, and answers "commonjs" for it, so the callers take their
 * slower path, which holds for both.
 * @param {string} file
 * @param {(dir: string) => ReturnType<typeof packageScope>} [scopeOf] the lookup, for a caller that keeps its answers
 * @returns {"module" | "commonjs" | "invalid" | undefined}
 */
export function moduleFormat(file, scopeOf = packageScope) {
  if (file.endsWith(".mjs")) return "module";
  if (file.endsWith(".cjs")) return "commonjs";
  if (!file.endsWith(".js")) return undefined;
  return scopeOf(dirname(file))?.type ?? "commonjs";
}
