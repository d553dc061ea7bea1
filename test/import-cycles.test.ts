import { readdirSync, readFileSync } from "node:fs";
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
  // The worker's JSDoc types: `/** @import { T } from "../src/protocol.js" */` and `import("./x.mjs")` in a type.
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
    expect(edges).toContain("worker/channel.mjs -> src/protocol.ts");
    expect(edges).toContain("src/protocol.ts -> worker/wire.mjs");
  });
});
