/**
 * The agent's TypeBox as one prebuilt file, for the modules whose top file imports it. In the
 * agent's process TypeBox is loaded already; an isolate evaluates it afresh, and TypeBox 1.x is
 * about 700 ES module files: through Node's module loader (resolving some 2400 specifiers) that is
 * 70-240 ms of a worker's CPU, where the same code as one CommonJS file is about 12 ms. The file is
 * built here with esbuild from the agent's installed package (whatever version it is), and the
 * isolate evaluates its text (worker/agent-packages.mjs) where it would have evaluated the package.
 *
 * Why it is made the way it is (as the runtime's code cache, ./code-cache.ts):
 * - Only the host builds it, from the package folder the agent's alias table names, into the host's
 *   private transform cache folder (a folder the supervisor refuses to start a hook whose policy
 *   reaches), in a file named by the package's real path, version and the entries bundled, sealed
 *   with the sha256 of its body (src/gates/sealed.ts): a cut or changed file is dropped, never
 *   evaluated. The body lists every file esbuild read with its size and modification time: a
 *   package changed in place is built again.
 * - A module gets the text in its load spec (the host's first message, on the control channel no
 *   other hook reaches; the process boot is a command-line argument, too small for it), only when
 *   its top file imports one of the package's names: its isolate needs no read grant for the file,
 *   and no hook can change what another's isolate evaluates.
 * - A start that finds no file loads the package natively, as without one; the build runs in
 *   esbuild's own process once that host's loads settled (none in flight for `SETTLE_MS`), once.
 *   A Bun host (its loader is fast), `transformCacheDir: false`, or a failed build: the native path.
 */
import { createHash } from "node:crypto";
import { readFileSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parse } from "es-module-lexer/js";
import { writeFileAtomic } from "../gates/atomic-write.js";
import { boundFolder, defaultTransformCacheDir, markUsed, privateDir } from "../gates/private-dir.js";
import { seal, unseal } from "../gates/sealed.js";
import { HOST_BUN } from "../policy/runtime.js";
import { ancestors } from "../policy/paths.js";
import { SPECIFIER } from "../policy/import-graph.js";
import type { AgentBundle, AgentModules } from "../contract/protocol.js";

/** Bumped when the file format or the build changes: old files then miss. */
const FORMAT = "hookbox-agent-bundle-1";
/** The packages served as one file: TypeBox, which pi's examples import to build their tools' schemas. */
const BUNDLED = ["typebox"] as const;
/** How long no load may be in flight before the file is built. */
const SETTLE_MS = 150;
/** A bundle is about 500 KB: a few agent versions. */
const BUNDLE_FOLDER_BYTES = 8 * 1024 * 1024;
const BUNDLE_FILE = /^[0-9a-f]{64}\.cjs$/;

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/** What a file's first line holds: each alias target's key in the bundle's exports, and every file esbuild read. */
interface BundleMeta { entries: Record<string, string>; inputs: Array<[string, number, number]> }

/** The package folder (real) and manifest of `file`'s nearest `package.json` named `name`. */
function packageOf(file: string): { dir: string; name: string; version: string } | undefined {
  for (const dir of ancestors(dirname(file))) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown; version?: unknown };
      if (typeof manifest.name !== "string") continue;
      return { dir: realpathSync(dir), name: manifest.name, version: typeof manifest.version === "string" ? manifest.version : "" };
    } catch { /* no manifest here */ }
  }
  return undefined;
}

/** The bundle of one package of the agent's, in one cache folder: read, checked, built. */
export class AgentBundles {
  readonly file: string;
  /** The alias names (`typebox`, `typebox/compile`…) whose targets the bundle holds. */
  readonly names: ReadonlySet<string>;
  readonly #dir: string;
  readonly #entries: Record<string, string>;
  readonly #table: AgentModules;
  /** `undefined`: not read yet; `null`: none (or dropped). */
  #bundle: Promise<AgentBundle | null> | undefined;
  #inFlight = 0;
  #wanted = false;
  #built = false;
  #timer: NodeJS.Timeout | undefined;
  /** The build, while it runs (tests wait for it). */
  building: Promise<void> | undefined;

  constructor(cacheDir: string, pkg: { dir: string; name: string; version: string }, targets: Map<string, string[]>, table: AgentModules) {
    this.#dir = pkg.dir;
    this.#table = table;
    const files = [...targets.keys()].sort();
    this.#entries = Object.fromEntries(files.map((file, i) => [file, `e${i}`]));
    this.names = new Set([...targets.values()].flat());
    this.file = join(cacheDir, `${sha256(JSON.stringify([FORMAT, pkg.dir, pkg.name, pkg.version, files]))}.cjs`);
  }

  /** Whether `source` (a module's top file) imports one of the bundle's names, its static specifiers read as the import graph reads them. */
  importedBy(source: string): boolean {
    for (const [, specifier] of source.matchAll(SPECIFIER)) if (specifier && this.names.has(specifier)) return true;
    return false;
  }

  /**
   * What a load spec carries for a module whose top file imports the package: the bundle, or none
   * yet (its build is then due once loads settle). Counts a load in flight until `settled`.
   */
  async forLoad(): Promise<AgentBundle | undefined> {
    this.#inFlight++;
    clearTimeout(this.#timer);
    const bundle = await (this.#bundle ??= this.#read());
    if (!bundle) this.#wanted = true;
    return bundle ?? undefined;
  }

  /** A load begun with `forLoad` ended: when none is in flight, the build is due after `SETTLE_MS`. */
  settled(): void {
    this.#inFlight--;
    if (!this.#wanted || this.#built || this.#inFlight > 0) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (this.#inFlight > 0 || this.#built) return;
      this.#built = true;
      this.building = this.#build().catch(() => {});
    }, SETTLE_MS);
    this.#timer.unref();
  }

  /** The file's bundle when its seal holds and every input is as it was; a file that fails either is removed. */
  async #read(): Promise<AgentBundle | null> {
    let data: Buffer;
    try {
      data = await readFile(this.file);
    } catch {
      return null;
    }
    const drop = () => { try { unlinkSync(this.file); } catch { /* already gone */ } return null; };
    const body = unseal(FORMAT, data);
    const end = body?.indexOf(10) ?? -1;
    if (!body || end < 0) return drop();
    try {
      const meta = JSON.parse(body.subarray(0, end).toString("utf8")) as BundleMeta;
      const now = await Promise.all(meta.inputs.map(([file]) => stat(file).catch(() => undefined)));
      if (meta.inputs.some(([, size, mtime], i) => now[i]?.size !== size || now[i]?.mtimeMs !== mtime)) return drop();
      markUsed(this.file);
      return { text: body.subarray(end + 1).toString("utf8"), entries: meta.entries, name: join(this.#dir, "hookbox-bundle.cjs") };
    } catch {
      return drop();
    }
  }

  /** Build the bundle with esbuild (its own process), write it sealed, and serve it to later loads. */
  async #build(): Promise<void> {
    const esbuild = await import("esbuild");
    // Entries: the package's own alias targets, then the other packages' files that import only it (`withTypeBox`).
    const others = (await withTypeBox(this.#table, this.names)).filter((file) => !Object.hasOwn(this.#entries, file));
    const entries = { ...this.#entries, ...Object.fromEntries(others.map((file, i) => [file, `w${i}`])) };
    const exportsOf = Object.entries(entries).map(([file, key]) => `export * as ${key} from ${JSON.stringify(file)};`).join("\n");
    const result = await esbuild.build({
      stdin: { contents: exportsOf, resolveDir: this.#dir, loader: "js" },
      absWorkingDir: this.#dir, bundle: true, format: "cjs", platform: "node", target: `node${process.versions.node.split(".")[0]}`,
      // Names as the package's own (esbuild renames a top-level binding that two files declare).
      keepNames: true, write: false, metafile: true, logLevel: "silent", legalComments: "none",
    });
    const text = namespaces(result.outputFiles[0]!.text);
    const inputs = Object.keys(result.metafile.inputs).filter((input) => input !== "<stdin>").map((input): [string, number, number] => {
      const file = resolve(this.#dir, input);
      const s = statSync(file);
      return [file, s.size, s.mtimeMs];
    });
    const meta: BundleMeta = { entries, inputs };
    await writeFileAtomic(this.file, seal(FORMAT, `${JSON.stringify(meta)}\n${text}`));
    this.#bundle = Promise.resolve({ text, entries, name: join(this.#dir, "hookbox-bundle.cjs") });
    void boundFolder(dirname(this.file), BUNDLE_FILE, BUNDLE_FOLDER_BYTES);
  }
}

/**
 * The files of the agent's other packages that the host's map places a name in
 * (src/discovery/agent-exports.ts) and whose every import is one of the bundled package's names:
 * pi-ai's `StringEnum`, defined in a file that imports `typebox` alone. Bundled too, a module's read
 * of such a name (while it loads) evaluates that file with the bundle's TypeBox, one instance with
 * the module's own `Type`, instead of the package's files through Node's loader. Read when the
 * bundle is built (after the loads settled), never while a start waits.
 */
async function withTypeBox(table: AgentModules, names: ReadonlySet<string>): Promise<string[]> {
  const files = new Set(Object.values(table.exports ?? {}).flatMap((map) => map.files));
  const out: string[] = [];
  for (const file of files) {
    try {
      const [imports] = parse(await readFile(file, "utf8"));
      if (imports.length > 0 && imports.every((i) => i.d === -1 && i.n !== undefined && names.has(i.n))) out.push(file);
    } catch { /* not read: left to Node's loader */ }
  }
  return out.sort();
}

/** esbuild's helper that fills a namespace object (an `import * as`), as this esbuild writes it. */
const EXPORT_HELPER = "var __export = (target, all) => {\n  for (var name in all)\n    __defProp(target, name, { get: all[name], enumerable: true });\n};";
/**
 * The bundle's namespaces made like a module namespace: no prototype, tagged `Module`, their names
 * sorted, closed to new ones. A package's `export * as Type` is one, and a module may look at it.
 */
const MODULE_EXPORT_HELPER = "var __export = (target, all) => {\n  Object.setPrototypeOf(target, null);\n  for (var name of Object.keys(all).sort())\n    __defProp(target, name, { get: all[name], enumerable: true });\n  __defProp(target, Symbol.toStringTag, { value: \"Module\" });\n  Object.preventExtensions(target);\n};";

/** `text` with its namespace helper replaced; a build whose helper differs is refused (the native path). */
function namespaces(text: string): string {
  if (!text.includes(EXPORT_HELPER)) throw new Error("esbuild's namespace helper is not the one expected");
  return text.replace(EXPORT_HELPER, MODULE_EXPORT_HELPER);
}

const byTable = new WeakMap<AgentModules, Map<string | false | undefined, AgentBundles | null>>();

/**
 * The bundle of the agent's TypeBox for `table` in `cacheDir`, once per table and folder; none on a
 * Bun host, without a private cache folder, or when the table names no TypeBox package.
 */
export function agentBundlesFor(table: AgentModules | undefined, cacheDir: string | false | undefined): AgentBundles | undefined {
  if (!table || cacheDir === false || HOST_BUN !== undefined) return undefined;
  let byDir = byTable.get(table);
  if (!byDir) byTable.set(table, (byDir = new Map()));
  let found = byDir.get(cacheDir);
  if (found === undefined) {
    found = null;
    const dir = join(cacheDir ?? defaultTransformCacheDir(), "bundles");
    // Each bundled package's alias targets (its files) with the names that reach them.
    const packages = new Map<string, { pkg: NonNullable<ReturnType<typeof packageOf>>; targets: Map<string, string[]> }>();
    for (const [name, target] of Object.entries(table.alias)) {
      if (name.endsWith("/") || !/\.m?js$/.test(target)) continue;
      const pkg = packageOf(target);
      if (!pkg || !(BUNDLED as readonly string[]).includes(pkg.name)) continue;
      const entry = packages.get(pkg.dir) ?? { pkg, targets: new Map<string, string[]>() };
      packages.set(pkg.dir, entry);
      entry.targets.set(target, [...(entry.targets.get(target) ?? []), name]);
    }
    const [only] = packages.values();
    if (packages.size === 1 && only && privateDir(dir)) found = new AgentBundles(dir, only.pkg, only.targets, table);
    byDir.set(cacheDir, found);
  }
  return found ?? undefined;
}

/**
 * What one module's load spec carries of the agent's bundle (`given`: none when its top file does
 * not import the package, or no bundle is built yet), and what to call once its load ended.
 */
export async function agentBundleForLoad(table: AgentModules | undefined, cacheDir: string | false | undefined, topFile: string, maxMessageBytes: number, maxFileCharacters: number): Promise<{ given?: AgentBundle; settled(): void }> {
  const bundles = agentBundlesFor(table, cacheDir);
  const none = { settled() {} };
  if (!bundles) return none;
  let source: string;
  try {
    // The module's own file, read on the agent's thread: no larger than one file the hook's transform budget takes
    // (in bytes, so never more than it takes); a larger one, which a hook may write, gets no bundle rather than filling the host's memory.
    if ((await stat(topFile)).size > maxFileCharacters) return none;
    source = await readFile(topFile, "utf8");
  } catch {
    return none;
  }
  if (!bundles.importedBy(source)) return none;
  const given = await bundles.forLoad();
  // A message bound below the bundle's size (the `maxMessageBytes` option): the package's own files.
  const fits = given !== undefined && Buffer.byteLength(given.text) <= maxMessageBytes;
  return { ...(fits ? { given } : {}), settled: () => bundles.settled() };
}
