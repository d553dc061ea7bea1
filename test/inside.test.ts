/** src/gates/inside.ts: the one "is this path in that folder" of hookbox, on the cases its callers meet. */
import { describe, expect, it } from "vitest";
import { inside, strictlyInside } from "../src/gates/inside.js";

describe("inside", () => {
  it("holds the folder itself and what lies under it, not a sibling whose name starts the same", () => {
    expect(inside("/p", "/p")).toBe(true);
    expect(inside("/p", "/p/a/b")).toBe(true);
    expect(inside("/p", "/pa")).toBe(false);
    expect(inside("/p/a", "/p")).toBe(false);
  });

  it("compares paths normalized: a trailing or doubled slash changes nothing, a .. segment that leaves the folder is outside it, a name starting with .. is inside", () => {
    expect(inside("/p/", "/p/a")).toBe(true);
    expect(inside("/p", "/p//a/")).toBe(true);
    expect(inside("/p", "/p/a/../../etc")).toBe(false);
    expect(inside("/p", "/p/a/../b")).toBe(true);
    expect(inside("/p", "/p/..x")).toBe(true);
  });

  it("counts every absolute path inside /", () => {
    expect(inside("/", "/etc/passwd")).toBe(true);
    expect(inside("//", "/")).toBe(true);
  });

  it("strictlyInside leaves the folder itself out, however it is written", () => {
    expect(strictlyInside("/p", "/p/a")).toBe(true);
    expect(strictlyInside("/p", "/p")).toBe(false);
    expect(strictlyInside("/p/", "/p/.")).toBe(false);
    expect(strictlyInside("/p", "/pa")).toBe(false);
  });
});
