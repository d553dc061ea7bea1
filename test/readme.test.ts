import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HOOK_ERROR_CODES } from "../src/index.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("README", () => {
  it("documents every error code in its error table, and no code that does not exist", () => {
    const section = readme.slice(readme.indexOf("## Errors"), readme.indexOf("## Faults, measured"));
    const documented = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented).toEqual([...HOOK_ERROR_CODES]);
  });
});
