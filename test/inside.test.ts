/** src/gates/inside.ts and src/policy/paths.ts insideResolved: the one "is this path in that folder" of hookbox, lexical and with links followed, on the cases its callers meet. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { below, inside, strictlyInside } from "../src/gates/inside.js";
import { insideResolved, realOrLexical } from "../src/policy/paths.js";
import { execCwd } from "../src/bridge/exec-gate.js";

describe("inside", () => {
  it("holds the folder itself and what lies under it, not a sibling whose name starts the same", () => {
    expect(inside("/p", "/p")).toBe(true);
    expect(inside("/p", "/p/a/b")).toBe(true);
    expect(inside("/p", "/pa")).toBe(false);
    expect(inside("/home/a", "/home/ab/x")).toBe(false);
    expect(inside("/p/a", "/p")).toBe(false);
  });

  it("compares paths normalized: a trailing or doubled slash changes nothing, a .. segment that leaves the folder is outside it, a name starting with .. is inside", () => {
    expect(inside("/p/", "/p/a")).toBe(true);
    expect(inside("/p", "/p//a/")).toBe(true);
    expect(inside("/p//", "/p")).toBe(true);
    expect(inside("/p", "/p/a/../../etc")).toBe(false);
    expect(inside("/p/a/..", "/p/b")).toBe(true);
    expect(inside("/p", "/p/a/../b")).toBe(true);
    expect(inside("/p", "/p/..x")).toBe(true);
  });

  it("counts every absolute path inside /, however / is written, and no relative one", () => {
    expect(inside("/", "/etc/passwd")).toBe(true);
    expect(inside("/", "/")).toBe(true);
    expect(inside("//", "/")).toBe(true);
    expect(inside("/.", "/a")).toBe(true);
    expect(inside("/", "etc")).toBe(false);
  });

  it("compares two relative paths as relative to one folder: .. leaves it", () => {
    expect(inside(".", "logs")).toBe(true);
    expect(inside(".", "./logs/")).toBe(true);
    expect(inside(".", "..")).toBe(false);
    expect(inside(".", "a/../../x")).toBe(false);
    expect(inside(".", "..x")).toBe(true);
    expect(inside("a", "a/b")).toBe(true);
    expect(inside("a", "ab")).toBe(false);
  });

  it("strictlyInside leaves the folder itself out, however it is written", () => {
    expect(strictlyInside("/p", "/p/a")).toBe(true);
    expect(strictlyInside("/p", "/p")).toBe(false);
    expect(strictlyInside("/p/", "/p/.")).toBe(false);
    expect(strictlyInside("/p", "/pa")).toBe(false);
    expect(strictlyInside("/", "/")).toBe(false);
    expect(strictlyInside("/", "/a")).toBe(true);
  });
});

describe("below", () => {
  it("is the part of the path under the folder, normalized: empty for the folder itself, undefined outside it", () => {
    expect(below("/p", "/p/a/b/")).toBe("a/b");
    expect(below("/p/", "/p")).toBe("");
    expect(below("/", "/etc/x")).toBe("etc/x");
    expect(below("/", "/")).toBe("");
    expect(below("/p", "/pa/b")).toBeUndefined();
    expect(below("/p", "/p/../etc")).toBeUndefined();
    expect(below(".", "a/./b")).toBe("a/b");
    expect(below(".", "../a")).toBeUndefined();
  });
});

describe("insideResolved", () => {
  const dir = mkdtempSync(join(tmpdir(), "hookbox-inside-"));
  mkdirSync(join(dir, "p", "a"), { recursive: true });
  mkdirSync(join(dir, "etc"));
  symlinkSync(join(dir, "etc"), join(dir, "p", "out"));
  symlinkSync(join(dir, "p"), join(dir, "p-link"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("follows links on both sides: a link out of the folder is outside it, a path through a link into the folder is inside", () => {
    expect(inside(join(dir, "p"), join(dir, "p", "out"))).toBe(true);
    expect(insideResolved(join(dir, "p"), join(dir, "p", "out"))).toBe(false);
    expect(insideResolved(join(dir, "p"), join(dir, "p", "out", "passwd"))).toBe(false);
    expect(insideResolved(join(dir, "etc"), join(dir, "p", "out"))).toBe(true);
    expect(insideResolved(join(dir, "p"), join(dir, "p-link", "a"))).toBe(true);
    expect(insideResolved(join(dir, "p-link"), join(dir, "p", "a"))).toBe(true);
    expect(insideResolved(join(dir, "p-link"), join(dir, "etc"))).toBe(false);
  });

  it("takes a path that does not exist as its nearest existing folder's real path and the rest as written: a new file below a link out lies where the link leads", () => {
    expect(realOrLexical(join(dir, "p", "out", "new", "file"))).toBe(join(dir, "etc", "new", "file"));
    expect(realOrLexical(join(dir, "p", "missing", "..", "a"))).toBe(join(dir, "p", "a"));
    expect(insideResolved(join(dir, "p"), join(dir, "p", "missing"))).toBe(true);
    expect(insideResolved(join(dir, "p"), join(dir, "p", "missing", "..", "..", "etc"))).toBe(false);
  });
});

describe("a path where a folder shows under another name", () => {
  const dir = mkdtempSync(join(tmpdir(), "hookbox-inside-names-"));
  mkdirSync(join(dir, "real", "sub"), { recursive: true });
  mkdirSync(join(dir, "own"));
  symlinkSync(join(dir, "real"), join(dir, "granted"));
  symlinkSync("/", join(dir, "root"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const gate = (fsRead: string[]) => ({ sandboxed: true, reads: { folder: join(dir, "own"), fsRead, fsWrite: [] } });

  it("pi.exec's working directory reached through a linked grant is named through the grant, a link to / included", () => {
    expect(execCwd(gate([join(dir, "granted")]), "/", join(dir, "granted", "sub"))).toEqual({ cwd: join(dir, "granted", "sub") });
    expect(execCwd(gate([join(dir, "root")]), "/", "/usr")).toEqual({ cwd: join(dir, "root", "usr") });
    expect(execCwd(gate([]), "/", "/usr")).toMatchObject({ refused: expect.stringContaining("outside what this hook may read") });
  });
});
