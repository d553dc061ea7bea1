import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as api from "../src/index.js";
import { HOOK_ERROR_CODES } from "../src/index.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/** The text of the `## <title>` section, up to the next `## ` heading. */
function section(title: string): string {
  const at = readme.indexOf(`\n## ${title}\n`);
  expect(at, `README has "## ${title}"`).toBeGreaterThan(-1);
  const end = readme.indexOf("\n## ", at + 1);
  return readme.slice(at, end === -1 ? undefined : end);
}

/** The rows of the first table in `text` whose header row is `header`, each split into cells. */
function table(text: string, header: string): string[][] {
  const start = text.indexOf(`${header}\n`);
  expect(start, `the table "${header}"`).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of text.slice(start).split("\n").slice(2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

/** Every name src/index.ts exports, types included, as the compiler sees it. */
function compiledExports(): string[] {
  const entry = new URL("../src/index.ts", import.meta.url).pathname;
  const program = ts.createProgram([entry], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowJs: true, noEmit: true, skipLibCheck: true, noLib: true, types: [] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return checker.getExportsOfModule(module).map((s) => s.name);
}

describe("README", () => {
  it("stays at most 450 lines: the detail lives in docs/", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(450);
  });

  it("documents every error code in its error table, and no code that does not exist", () => {
    const documented = [...section("Errors").matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented).toEqual([...HOOK_ERROR_CODES]);
  });

  it("names every runtime export of src/index.ts in its API table, and nothing there that src/index.ts does not export", () => {
    const named = table(section("API"), "| export | what |")
      .flatMap(([first]) => [...first!.matchAll(/`([A-Za-z_$][\w$]*)[^`]*`/g)].map((m) => m[1]!));
    expect(named.length).toBeGreaterThan(0);
    expect(Object.keys(api).filter((n) => !named.includes(n))).toEqual([]);
    const exported = new Set(compiledExports());
    expect(named.filter((n) => !exported.has(n))).toEqual([]);
  });
});
