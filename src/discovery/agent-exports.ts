/**
 * Which file of an agent's package defines each name its entry exports, when the entry is only
 * re-exports (`export { a } from "./x.js"`, `export * from "./y.js"`), so that an isolated module's
 * named read of the package (`truncateHead` of `@mariozechner/pi-coding-agent`) evaluates that file
 * and what it imports, not the whole package (worker/agent-packages.mjs). The binding is the one the
 * whole package gives: the same file, which Node's loader evaluates once per isolate.
 *
 * A name is left out (the worker then evaluates the whole package) wherever the answer is not
 * certain: an entry with code of its own (its top level would be skipped), a name two `export *`
 * give differently (ES modules do not export it), `default` through `export *` (not re-exported), a
 * name re-exported from another package or through `export * as`, a specifier that is not a plain
 * relative path, a file Node would not load as an ES module, a re-export statement the lexer's
 * positions do not account for exactly, and a file whose imports hold a cycle (evaluated first, it
 * could enter the cycle at another file than the whole package does, and which file of a cycle runs
 * first decides which sees the others uninitialized) or lead back to a file the read skips.
 */
import { readFileSync, realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse } from "es-module-lexer/js";
import type { AgentExports } from "../contract/protocol.js";
import { moduleFormat, packageScope } from "../../worker/module-format.mjs";

interface Facts {
  /** Code besides `export … from` statements: an `import`, a local export, any statement. */
  own: boolean;
  /** Names the file binds itself (a local export: `export const`, `export { x }`, `export default`). */
  locals: Set<string>;
  /** Names re-exported by name: the file and the name there, or null when not certain. */
  named: Map<string, { file: string; name: string } | null>;
  /** Files of `export * from`, or null when one is not certain. */
  stars: string[] | null;
  /** Files its static imports and re-exports name (relative ones; a bare specifier is another package). */
  imports: string[];
}

type Binding = { file: string; name: string; via: string[] };
/** Not exported (ES modules' null) or exported but not certainly where. */
const UNCERTAIN = Symbol("uncertain");

/** Whether `text` is only whitespace, comments and semicolons. */
function blank(text: string): boolean {
  for (let i = 0; i < text.length;) {
    if (/\s|;/.test(text[i]!)) i++;
    else if (text.startsWith("//", i)) { const end = text.indexOf("\n", i); i = end < 0 ? text.length : end; }
    else if (text.startsWith("/*", i)) { const end = text.indexOf("*/", i + 2); if (end < 0) return false; i = end + 2; }
    else return false;
  }
  return true;
}

const realFiles = new Map<string, string | undefined>();
/**
 * A relative specifier of `from` as the file Node loads (real path), or undefined. A specifier is a
 * URL: one with an escape, a query or a fragment is left to Node (not a plain path).
 */
function fileOf(from: string, specifier: string): string | undefined {
  if ((!specifier.startsWith("./") && !specifier.startsWith("../")) || /[%?#\\]/.test(specifier)) return undefined;
  const file = resolve(dirname(from), specifier);
  if (!realFiles.has(file)) {
    let real: string | undefined;
    try { real = realpathSync(file); } catch { /* not there: Node's import fails too */ }
    realFiles.set(file, real);
  }
  return realFiles.get(file);
}

export class ExportMapper {
  private readonly facts = new Map<string, Facts | null>();
  private readonly scopes = new Map<string, ReturnType<typeof packageScope>>();
  private readonly closures = new Map<string, Set<string> | null>();
  private readonly manifests = new Set<string>();

  /** The files read so far: each module, and each `package.json` that decided one's module type. */
  inputs(): string[] {
    return [...this.facts.keys(), ...this.manifests];
  }

  /** What `file` exports, or null when the lexer cannot read it. */
  factsOf(file: string): Facts | null {
    if (this.facts.has(file)) return this.facts.get(file)!;
    let facts: Facts | null = null;
    try { facts = this.read(file, readFileSync(file, "utf8")); } catch { /* unreadable or not lexable */ }
    this.facts.set(file, facts);
    return facts;
  }

  private read(file: string, source: string): Facts {
    const [imports, exports] = parse(source, file);
    const facts: Facts = { own: false, locals: new Set(), named: new Map(), stars: [], imports: [] };
    const byStatement = new Map<number, Array<(typeof exports)[number]>>();
    for (const e of exports) byStatement.set(e.ss, [...(byStatement.get(e.ss) ?? []), e]);
    let last = 0;
    for (const entry of imports) {
      if (entry.t !== 1) continue; // a dynamic import or import.meta is code of the file's own
      const target = entry.n === undefined ? undefined : fileOf(file, entry.n);
      if (target) facts.imports.push(target);
      if (!facts.own && !blank(source.slice(last, entry.ss))) facts.own = true;
      last = entry.se;
      const head = source.slice(entry.ss, entry.s - 1);
      if (!head.startsWith("export")) { facts.own = true; continue; }
      const names = byStatement.get(entry.ss) ?? [];
      if (names.length === 0) {
        // `export * from "…"`, exactly: anything else in the statement is not accounted for.
        if (head.split(/\s+/).join(" ") === "export * from " && target && facts.stars) facts.stars.push(target);
        else facts.stars = null;
        continue;
      }
      const list = this.reexported(head);
      for (const e of names) {
        const name = list?.get(e.n);
        facts.named.set(e.n, name !== undefined && target ? { file: target, name } : null);
      }
    }
    if (!facts.own && !blank(source.slice(last))) facts.own = true;
    const statements = new Set(imports.map((entry) => entry.ss));
    for (const e of exports) if (!statements.has(e.ss)) { facts.locals.add(e.n); facts.own = true; }
    return facts;
  }

  /**
   * The names of `export { a as b, c } from` (the text before the specifier) as exported → imported,
   * read by the lexer as the local export list they are written as; undefined when the statement
   * is not exactly that form (`export * as ns`, a comment where a keyword is expected…).
   */
  private reexported(head: string): Map<string, string> | undefined {
    const open = head.indexOf("{");
    const close = head.lastIndexOf("}");
    if (open < 0 || close < open || head.slice(0, open).trim() !== "export" || head.slice(close + 1).trim() !== "from") return undefined;
    try {
      const [, list] = parse(`export ${head.slice(open, close + 1)};`);
      const map = new Map<string, string>();
      for (const e of list) { if (e.ln === undefined) return undefined; map.set(e.n, e.ln); }
      return map;
    } catch { return undefined; }
  }

  /** Where `name` of `file` is bound, as ES modules' ResolveExport finds it (`seen`: its resolveSet). */
  private resolve(file: string, name: string, seen = new Set<string>()): Binding | null | typeof UNCERTAIN {
    const key = `${file}\0${name}`;
    if (seen.has(key)) return null; // a circular re-export
    seen.add(key);
    const facts = this.factsOf(file);
    if (!facts) return UNCERTAIN;
    if (facts.locals.has(name)) return { file, name, via: [] };
    if (facts.named.has(name)) {
      const to = facts.named.get(name);
      const found = to ? this.resolve(to.file, to.name, seen) : UNCERTAIN;
      return found && found !== UNCERTAIN ? { ...found, via: [file, ...found.via] } : UNCERTAIN;
    }
    if (name === "default") return null;
    if (!facts.stars) return UNCERTAIN;
    let found: Binding | null = null;
    for (const star of facts.stars) {
      const binding = this.resolve(star, name, seen);
      if (binding === UNCERTAIN) return UNCERTAIN;
      if (!binding) continue;
      // Two different bindings: ambiguous, so not exported; the whole package says so itself.
      if (found && (found.file !== binding.file || found.name !== binding.name)) return UNCERTAIN;
      found ??= { ...binding, via: [file, ...binding.via] };
    }
    return found;
  }

  /** Every name `file` exports (explicit, then through `export *`, without `default`), or null when not certain. */
  private names(file: string, seen = new Set<string>()): Set<string> | null {
    const facts = this.factsOf(file);
    if (!facts || !facts.stars) return null;
    if (seen.has(file)) return new Set();
    seen.add(file);
    const names = new Set([...facts.locals, ...facts.named.keys()]);
    for (const star of facts.stars) {
      const more = this.names(star, seen);
      if (!more) return null;
      for (const name of more) if (name !== "default") names.add(name);
    }
    return names;
  }

  /**
   * The files `file`'s static imports reach, itself included, or null when they hold a cycle: the
   * whole package may enter it at another file than `file` does, and which file of a cycle runs
   * first decides which sees the others' bindings uninitialized.
   */
  private closure(file: string): Set<string> | null {
    if (this.closures.has(file)) return this.closures.get(file)!;
    const reached = new Set<string>();
    const open = new Set<string>();
    let cyclic = false;
    const visit = (at: string): void => {
      if (open.has(at)) { cyclic = true; return; }
      if (reached.has(at) || cyclic) return;
      reached.add(at);
      open.add(at);
      for (const dep of this.factsOf(at)?.imports ?? []) visit(dep);
      open.delete(at);
    };
    visit(file);
    const answer = cyclic ? null : reached;
    this.closures.set(file, answer);
    return answer;
  }

  /** Whether Node loads `file` as an ES module (worker/module-format.mjs), each folder's scope looked up once and its package.json kept as an input. */
  private esm(file: string): boolean {
    return moduleFormat(file, (dir) => {
      if (!this.scopes.has(dir)) {
        const scope = packageScope(dir);
        if (scope) this.manifests.add(scope.manifest);
        this.scopes.set(dir, scope);
      }
      return this.scopes.get(dir);
    }) === "module";
  }

  /** The map of a package entry, or undefined when the entry has code of its own or is not an ES module. */
  map(entry: string): AgentExports | undefined {
    let real: string;
    try { real = realpathSync(entry); } catch { return undefined; }
    const facts = this.factsOf(real);
    if (!facts || facts.own || !this.esm(real)) return undefined;
    const files: string[] = [];
    const names: AgentExports["names"] = {};
    for (const name of this.names(real) ?? facts.named.keys()) {
      const binding = this.resolve(real, name);
      if (!binding || binding === UNCERTAIN || !this.esm(binding.file)) continue;
      const reached = this.closure(binding.file);
      if (!reached || binding.via.some((file) => reached.has(file))) continue;
      let index = files.indexOf(binding.file);
      if (index < 0) index = files.push(binding.file) - 1;
      names[name] = [index, binding.name];
    }
    return Object.keys(names).length > 0 ? { files, names } : undefined;
  }
}

/**
 * The maps of the alias table's files that have one (one mapper: files shared between packages are
 * read once), and every file their answer depends on (the files read and the `package.json` files
 * that made them ES modules): a cache of the maps holds while those are unchanged.
 */
export function agentExports(alias: Readonly<Record<string, string>>): { exports: Record<string, AgentExports>; inputs: string[] } {
  const mapper = new ExportMapper();
  const exports: Record<string, AgentExports> = {};
  for (const file of new Set(Object.values(alias))) {
    if (file.endsWith("/")) continue;
    const map = mapper.map(file);
    if (map) exports[file] = map;
  }
  return { exports, inputs: mapper.inputs() };
}
