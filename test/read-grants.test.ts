/**
 * The link walk's cache (src/policy/read-grants.ts): what a walk found under one root is shared by
 * the modules of one start whose roots include it, and never makes a check weaker. Each module's
 * own folder is walked, each link found is judged against that module's readable areas, each
 * module's import graph is checked, and a walk is trusted for `WALK_CACHE_MS` only. The links are
 * built at test time; the clock is Vitest's (Date only), so the window is crossed without waiting.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { hookReads } from "../src/policy/read-grants.js";
import { tempDir } from "./helpers/files.js";
import { refusal } from "./helpers/read-refusal.js";

const HOOK = "export default () => {};\n";
const reads = (path: string, readable: string[] = []) => hookReads(path, { readable, walkRoots: true });

/** `<tmp>/project/{a,b}/hook.ts` sharing `<tmp>/project/node_modules` (one package in it), and `<tmp>/outside/` with a secret. */
function project() {
  const root = tempDir("hookbox-walks-");
  const at = (rel: string, text: string) => {
    const file = join(root, rel);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  at("project/node_modules/shared/package.json", JSON.stringify({ name: "shared" }));
  return { root, at, a: at("project/a/hook.ts", HOOK), b: at("project/b/hook.ts", HOOK), shared: join(root, "project", "node_modules"), outside: join(root, "outside"), secret: at("outside/secret.key", "hunter2") };
}

beforeEach(() => vi.useFakeTimers({ toFake: ["Date"], now: Date.now() }));
afterEach(() => vi.useRealTimers());

describe("the link walk shared by the modules of one start", () => {
  it("a module in a second folder has its own folder walked although the root it shares was walked for the first", () => {
    const p = project();
    symlinkSync(p.secret, join(p.root, "project", "b", "notes.txt"));
    expect(() => reads(p.a)).not.toThrow();
    expect(refusal(() => reads(p.b))).toContain(`${join(p.root, "project", "b", "notes.txt")} -> ${p.secret}`);
  });

  it("a link found under a shared root is judged against each module's own readable areas, in either order", () => {
    const p = project();
    symlinkSync(p.outside, join(p.shared, "linked"));
    expect(refusal(() => reads(p.a))).toContain(`${join(p.shared, "linked")} -> ${p.outside}`);
    expect(() => reads(p.b, [p.outside])).not.toThrow();
    expect(refusal(() => reads(p.a))).toContain(`${join(p.shared, "linked")} -> ${p.outside}`);
  });

  it("a module whose shared root was walked for another still has its import graph checked", () => {
    const p = project();
    p.at("outside/lib/words.ts", "export const words = 1;\n");
    symlinkSync(join(p.outside, "lib"), join(p.root, "project", "lib"));
    writeFileSync(p.b, `import { words } from "../lib/words.ts";\nexport default () => words;\n`);
    expect(() => reads(p.a)).not.toThrow();
    expect(refusal(() => reads(p.b))).toContain(`the hook's import of ${join(p.root, "project", "lib", "words.ts")} goes through the symbolic link ${join(p.root, "project", "lib")}`);
  });

  it("a link planted under a walked root after the walk is refused once the walk's trust (2 s) has lapsed", () => {
    const p = project();
    expect(() => reads(p.a)).not.toThrow();
    symlinkSync(p.outside, join(p.shared, "shared", "planted"));
    vi.setSystemTime(Date.now() + 2_001);
    expect(refusal(() => reads(p.b))).toContain(`${join(p.shared, "shared", "planted")} -> ${p.outside}`);
    expect(refusal(() => reads(p.a))).toContain(`${join(p.shared, "shared", "planted")} -> ${p.outside}`);
  });

  it("a dangling link under a root is judged by where it would lead", () => {
    const p = project();
    symlinkSync(join(p.outside, "not-yet"), join(p.shared, "dangling"));
    expect(refusal(() => reads(p.a))).toContain(`${join(p.shared, "dangling")} -> ${join(p.outside, "not-yet")}`);
    expect(() => reads(p.b, [p.outside])).not.toThrow();
  });
});
