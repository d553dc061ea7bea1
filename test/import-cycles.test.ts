import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(".");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every import, re-export and JSDoc `@import` of `file` into src/ or worker/, type-only ones included (TypeScript's own scanner). */
function importsOf(file: string, known: Set<string>): string[] {
  const text = readFileSync(file, "utf8");
  const { importedFiles } = ts.preProcessFile(text, true, true);
  // The worker's JSDoc types: `/** @import { T } from "../src/contract/protocol.js" */` and `import("./x.mjs")` in a type.
  const jsdoc = [...text.matchAll(/@import\s[^*]*?from\s+"([^"]+)"|import\("([^"]+)"\)/g)].map((m) => m[1] ?? m[2]!);
  return [...importedFiles.map((f) => f.fileName), ...jsdoc]
    .filter((spec) => spec.startsWith("."))
    .map((spec) => resolve(dirname(file), spec))
    .map((path) => (known.has(path) ? path : path.replace(/\.js$/, ".ts")))
    .filter((path) => known.has(path));
}

/** The cycles of the graph, each once, as the list of files it passes through. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

const files = [...sources(resolve("src")), ...sources(resolve("worker"))];
const known = new Set(files);
const graph = new Map(files.map((f) => [f, importsOf(f, known)]));

describe("the import graph of src/ and worker/", () => {
  it("has no cycle, type-only and JSDoc imports included", () => {
    const named = cycles(graph).map((c) => c.map((f) => relative(ROOT, f)).join(" -> "));
    expect(named).toEqual([]);
  });

  it("covers the worker: its modules and the host's imports of them are edges of the graph", () => {
    const edges = [...graph].flatMap(([from, to]) => to.map((t) => `${relative(ROOT, from)} -> ${relative(ROOT, t)}`));
    expect(edges).toContain("worker/entry.mjs -> worker/channel.mjs");
    expect(edges).toContain("worker/channel.mjs -> src/contract/protocol.ts");
    expect(edges).toContain("src/contract/protocol.ts -> worker/wire.mjs");
  });
});

/**
 * The rooms of src/: each folder's README says what lives there and, on its "May import:" line,
 * which rooms it may import (`name/`); worker/ is the isolate's half. A nested folder is part of
 * its room. The rules are read from the READMEs, so the place that states a rule is the one checked.
 */
const roomOf = (file: string): string => {
  const parts = relative(ROOT, file).split("/");
  return parts[0] === "worker" ? "worker" : parts.length === 2 ? "(entry)" : parts[1]!;
};
const ROOMS = [...readdirSync(resolve("src"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name), "worker"];
const readmeOf = (room: string) => (room === "worker" ? resolve("worker/README.md") : resolve("src", room, "README.md"));
function allowed(room: string): Set<string> {
  const line = readFileSync(readmeOf(room), "utf8").split("\n").find((l) => l.startsWith("May import:"));
  if (line === undefined) throw new Error(`${relative(ROOT, readmeOf(room))} has no "May import:" line`);
  return new Set([...line.matchAll(/`([a-z-]+)\/`/g)].map((m) => m[1]!).concat("worker"));
}

describe("the rooms of src/", () => {
  it("has only the package entry points at its top level", () => {
    const top = readdirSync(resolve("src"), { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name).sort();
    expect(top).toEqual(["extension.ts", "hooks-omp.ts", "hooks.ts", "index.ts"]);
  });

  it("gives every folder (and worker/) a README saying what it is for and what it may import", () => {
    const folders = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== "seccomp").flatMap((e) => [join(dir, e.name), ...folders(join(dir, e.name))]);
    const missing = [...folders(resolve("src")), resolve("worker")].filter((dir) => !existsSync(join(dir, "README.md")) || !/^May import:/m.test(readFileSync(join(dir, "README.md"), "utf8")));
    expect(missing.map((d) => relative(ROOT, d))).toEqual([]);
  });

  it("imports across rooms only what each room's README allows", () => {
    const rules = new Map(ROOMS.map((room) => [room, allowed(room)]));
    const breaks = [...graph].flatMap(([from, to]) => to
      .filter((t) => roomOf(t) !== roomOf(from) && roomOf(from) !== "(entry)" && !rules.get(roomOf(from))!.has(roomOf(t)))
      .map((t) => `${relative(ROOT, from)} -> ${relative(ROOT, t)}`));
    expect(breaks).toEqual([]);
  });

  it("keeps agent-neutral code off claude/: nothing of agents/ (the one router, what every row shares, the command-hook rows) nor cli's routing and launching for every agent imports claude/, which sits above agents/", () => {
    const neutralCli = ["src/cli/agent-hook.ts", "src/cli/command-launch.ts", "src/cli/codex.ts", "src/cli/gemini.ts"].map((f) => resolve(f));
    expect(neutralCli.filter((f) => !known.has(f)).map((f) => relative(ROOT, f))).toEqual([]);
    const neutral = (file: string) => roomOf(file) === "agents" || neutralCli.includes(file);
    const breaks = [...graph].flatMap(([from, to]) => to.filter((t) => neutral(from) && roomOf(t) === "claude").map((t) => `${relative(ROOT, from)} -> ${relative(ROOT, t)}`));
    expect(breaks).toEqual([]);
    expect(allowed("claude").has("agents")).toBe(true);
    expect(allowed("agents").has("claude")).toBe(false);
  });

  it("has no cycle between rooms, and the contract imports only the gates", () => {
    const rooms = new Map(ROOMS.map((room) => [room, [...allowed(room)].filter((r) => r !== room && r !== "worker")]));
    expect(cycles(rooms)).toEqual([]);
    expect(rooms.get("gates")).toEqual([]);
    expect(rooms.get("contract")).toEqual(["gates"]);
  });
});
