/** src/policy/paths.ts: the original's resolvePath / expandPath, step by step. */
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { mkdirSync, renameSync, symlinkSync } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
import { expandPath, realThisTurn, resolvePath } from "../src/policy/paths.js";
import { tempDir } from "./helpers/files.js";

const HOME = "/home/author";
const CWD = "/work/project";

describe("resolvePath", () => {
  it("uses an absolute path as is", () => {
    expect(resolvePath("/etc/hooks/a.ts", CWD, HOME)).toBe("/etc/hooks/a.ts");
  });

  it("resolves a relative path against cwd, dot segments included", () => {
    expect(resolvePath("hooks/a.ts", CWD, HOME)).toBe("/work/project/hooks/a.ts");
    expect(resolvePath("./hooks/../b.ts", CWD, HOME)).toBe("/work/project/b.ts");
    expect(resolvePath("../up.ts", CWD, HOME)).toBe("/work/up.ts");
  });

  it("expands ~, ~/x and ~x against the home folder", () => {
    expect(resolvePath("~", CWD, HOME)).toBe(HOME);
    expect(resolvePath("~/hooks/a.ts", CWD, HOME)).toBe("/home/author/hooks/a.ts");
    expect(resolvePath("~hooks/a.ts", CWD, HOME)).toBe("/home/author/hooks/a.ts");
  });

  it("defaults the home folder to the user's", () => {
    expect(resolvePath("~/a.ts", CWD)).toBe(join(homedir(), "a.ts"));
  });

  it("turns a file:// URL into its path, decoding escapes", () => {
    expect(resolvePath("file:///srv/my%20hooks/a.ts", CWD, HOME)).toBe("/srv/my hooks/a.ts");
    expect(resolvePath(pathToFileURL("/srv/ü/a.ts").href, CWD, HOME)).toBe("/srv/ü/a.ts");
  });

  it("keeps a ~ that is not at the start", () => {
    expect(resolvePath("a~/b.ts", CWD, HOME)).toBe("/work/project/a~/b.ts");
  });
});

describe("the @ prefix", () => {
  it("is stripped before /, ~ and ~/", () => {
    expect(expandPath("@/abs/a.ts", HOME)).toBe("/abs/a.ts");
    expect(expandPath("@~/a.ts", HOME)).toBe("/home/author/a.ts");
    expect(expandPath("@~", HOME)).toBe(HOME);
  });

  it("is stripped before a win32 absolute path and before the internal URL schemes", () => {
    expect(expandPath("@C:\\hooks\\a.ts", HOME)).toBe("C:\\hooks\\a.ts");
    for (const scheme of ["agent", "artifact", "skill", "rule", "local", "mcp"]) {
      expect(expandPath(`@${scheme}://x/y`, HOME)).toBe(`${scheme}://x/y`);
    }
  });

  it("is kept anywhere else, so a scoped-package-like relative path stays relative", () => {
    expect(expandPath("@scope/hook.ts", HOME)).toBe("@scope/hook.ts");
    expect(resolvePath("@scope/hook.ts", CWD, HOME)).toBe("/work/project/@scope/hook.ts");
    expect(expandPath("@file:///a.ts", HOME)).toBe("@file:///a.ts");
    expect(expandPath("a@/b.ts", HOME)).toBe("a@/b.ts");
  });

  it("is stripped before the other steps run, so an @~ path with unicode spaces expands fully", () => {
    expect(resolvePath("@~/x\u00a0y.ts", CWD, HOME)).toBe("/home/author/x y.ts");
  });
});

describe("unicode spaces", () => {
  it("turns U+00A0, U+2000-U+200A, U+202F, U+205F and U+3000 into plain spaces", () => {
    const spaces = ["\u00a0", "\u2000", "\u2005", "\u200a", "\u202f", "\u205f", "\u3000"];
    for (const s of spaces) expect(expandPath(`/a${s}b.ts`, HOME)).toBe("/a b.ts");
  });

  it("leaves other characters alone, zero-width space and tab included", () => {
    expect(expandPath("/a\u200bb.ts", HOME)).toBe("/a\u200bb.ts");
    expect(expandPath("/a\tb.ts", HOME)).toBe("/a\tb.ts");
  });

  it("are normalised before a file:// URL is decoded and before ~ is expanded", () => {
    expect(expandPath("~/my\u3000hooks/a.ts", HOME)).toBe("/home/author/my hooks/a.ts");
    expect(() => expandPath("file:///my\u00a0hooks/a.ts", HOME)).not.toThrow();
    expect(expandPath("file:///my\u00a0hooks/a.ts", HOME)).toBe("/my hooks/a.ts");
  });
});

describe("realThisTurn", () => {
  it("answers a path as the file system did at its first question in this turn of the event loop, and asks again in the next", async () => {
    const root = tempDir("hookbox-real-turn-");
    const roots = join(root, "node_modules");
    mkdirSync(roots);
    mkdirSync(join(root, "elsewhere"));
    expect(realThisTurn(roots)).toBe(roots);
    renameSync(roots, join(root, "moved"));
    symlinkSync(join(root, "elsewhere"), roots);
    expect(realThisTurn(roots)).toBe(roots);
    expect(realThisTurn(join(root, "missing"))).toBeUndefined();
    await nextTurn();
    expect(realThisTurn(roots)).toBe(join(root, "elsewhere"));
  });
});
