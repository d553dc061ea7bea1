/**
 * pi's example extensions type-checked against `hookbox/hooks` (the drop-in claim for types): each
 * example of pi 0.73.1's `examples/extensions/`, copied into a fresh folder whose node_modules is
 * pi's install, with every type it imports from `@mariozechner/pi-coding-agent` that `hookbox/hooks`
 * also exports by name taken from `hookbox/hooks` instead (`swapImports`); pi's `ExtensionAPI` and
 * its values stay pi's. `tsc` then checks the folder, once swapped and once as pi ships it: an
 * error of the swapped run that pi's own run does not have is of hookbox's making.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const PI_MODULE = "@mariozechner/pi-coding-agent";

/** The names `hookbox/hooks` exports (src/hooks.ts), as tsc sees them. */
export function hookboxHookNames(): Set<string> {
  const entry = join(ROOT, "src", "hooks.ts");
  const program = ts.createProgram([entry], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true });
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!);
  return new Set(symbol ? checker.getExportsOfModule(symbol).map((s) => s.name) : []);
}

/**
 * `source` with each type it imports from pi's package that `names` holds imported from
 * `hookbox/hooks` instead (an `import type { … }`, or a `type X` specifier of a mixed import);
 * what is left of pi's import stays. Undefined when nothing was swapped.
 */
export function swapImports(source: string, names: ReadonlySet<string>): string | undefined {
  let swapped = false;
  const out = source.replace(/import\s+(type\s+)?\{([^}]*)\}\s*from\s*"@mariozechner\/pi-coding-agent";/g, (whole, typeOnly: string | undefined, list: string) => {
    const specifiers = list.split(",").map((s) => s.trim()).filter(Boolean);
    const moved: string[] = [];
    const kept: string[] = [];
    for (const spec of specifiers) {
      const isType = typeOnly !== undefined || spec.startsWith("type ");
      const name = spec.replace(/^type\s+/, "").split(/\s+as\s+/)[0]!;
      (isType && names.has(name) ? moved : kept).push(typeOnly !== undefined ? spec : spec.replace(/^type\s+/, isType ? "type " : ""));
    }
    if (moved.length === 0) return whole;
    swapped = true;
    const hookbox = `import type { ${moved.map((s) => s.replace(/^type\s+/, "")).join(", ")} } from "hookbox/hooks";`;
    return kept.length === 0 ? hookbox : `${hookbox} import ${typeOnly ?? ""}{ ${kept.join(", ")} } from "${PI_MODULE}";`;
  });
  return swapped ? out : undefined;
}

export interface TypeCheck {
  /** tsc's errors, each `file(line,col): error TSxxxx: …` (its first line), relative to the examples folder. */
  errors: string[];
  /** The examples whose imports were swapped (relative paths). */
  swapped: string[];
}

/** Every `.ts` file under `dir`, relative to it. */
function tsFiles(dir: string, prefix = ""): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules") return [];
    if (statSync(path).isDirectory()) return tsFiles(path, `${prefix}${name}/`);
    return name.endsWith(".ts") ? [`${prefix}${name}`] : [];
  });
}

/** The examples (relative to `examples`) that import a type `hookbox/hooks` exports by name. */
export function swappableExamples(examples: string, names = hookboxHookNames()): string[] {
  return tsFiles(examples).filter((file) => swapImports(readFileSync(join(examples, file), "utf8"), names) !== undefined);
}

/**
 * pi's examples (`examples`: its `examples/extensions/`; `only` of them, else all) checked by tsc in
 * a fresh folder whose node_modules is pi's (`piModules`), swapped (`swap`) or as pi ships them.
 * `hooks` is the file `hookbox/hooks` names (src/hooks.ts, hookbox's as it is now).
 */
export function typeCheckExamples(examples: string, piModules: string, options: { swap: boolean; only?: string[]; hooks?: string }): TypeCheck {
  const dir = mkdtempSync(join(tmpdir(), "hookbox-pi-examples-types-"));
  try {
    cpSync(examples, join(dir, "examples"), { recursive: true });
    const swapped: string[] = [];
    const names = options.swap ? hookboxHookNames() : new Set<string>();
    for (const file of options.swap ? tsFiles(join(dir, "examples")) : []) {
      const path = join(dir, "examples", file);
      const changed = swapImports(readFileSync(path, "utf8"), names);
      if (changed === undefined) continue;
      writeFileSync(path, changed);
      swapped.push(file);
    }
    symlinkSync(piModules, join(dir, "node_modules"), "dir");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "pi-examples", version: "1.0.0", type: "module" }));
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, skipLibCheck: true,
        types: ["node"], typeRoots: [join(ROOT, "node_modules", "@types")],
        paths: { "hookbox/hooks": [options.hooks ?? join(ROOT, "src", "hooks.ts")] },
      },
      include: (options.only ?? ["**/*.ts"]).map((f) => `examples/${f}`),
    }));
    return { errors: tscErrors(dir, "examples/"), swapped };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** tsc's errors for the project in `dir`, each `file(line,col): error TSxxxx: …` (its first line), relative to `under` in it. */
export function tscErrors(dir: string, under: string): string[] {
  // From `dir`: tsc prints each file relative to its working folder, so `under` is found however far `dir` is from ours.
  const r = spawnSync(process.execPath, [tsc, "-p", dir, "--pretty", "false"], { cwd: dir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const prefix = new RegExp(`^.*?${under.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`);
  return `${r.stdout}${r.stderr}`.split("\n").filter((l) => / error TS\d+:/.test(l)).map((l) => l.replace(prefix, ""));
}
