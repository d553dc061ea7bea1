/**
 * The link walk remembered across starts (src/policy/link-walk.ts, `walked/` in the host's private
 * cache folder): the next start checks the inode, modification and change times of every folder the
 * walk read instead of reading them again, and walks again when one differs. Nothing it remembers
 * makes a check weaker: a link planted since is found (its folder's times changed, even when the
 * modification time is set back), a link's target is resolved again at every start, and a walk of
 * a folder changed too recently to tell a later change by its times is not remembered. The clock is
 * Vitest's (Date only), so the 2 s in-process trust is crossed without waiting.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { hookReads } from "../src/policy/read-grants.js";
import { tempDir } from "./helpers/files.js";
import { refusal } from "./helpers/read-refusal.js";

/** `<tmp>/project/hook.ts` with `<tmp>/project/node_modules/pkg/lib/`, `<tmp>/outside/` (readable) and `<tmp>/elsewhere/` (not). */
function project() {
  const root = tempDir("hookbox-walked-");
  const lib = join(root, "project", "node_modules", "pkg", "lib");
  mkdirSync(lib, { recursive: true });
  writeFileSync(join(lib, "index.js"), "export {};\n");
  const hook = join(root, "project", "hook.ts");
  writeFileSync(hook, "export default () => {};\n");
  for (const dir of ["outside", "elsewhere"]) mkdirSync(join(root, dir));
  writeFileSync(join(root, "outside", "notes.txt"), "fine");
  writeFileSync(join(root, "elsewhere", "secret.key"), "hunter2");
  const facts = join(tempDir("hookbox-walked-facts-"), "walks");
  const outside = join(root, "outside");
  return { root, hook, lib, outside, elsewhere: join(root, "elsewhere"), facts, nodeModules: join(root, "project", "node_modules"),
    // A start: the in-process trust of the previous walk (2 s) lapsed.
    reads: () => { vi.setSystemTime(Date.now() + 2_001); return hookReads(hook, { readable: [outside], walkRoots: true, factsDir: facts }); } };
}

/** Every folder under `dir` (itself included) as if last changed 10 s ago. */
function settle(dir: string): void {
  const old = new Date(Date.now() - 10_000);
  utimesSync(dir, old, old);
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) settle(join(dir, e.name));
}

const remembered = (facts: string) => { try { return readdirSync(join(facts, "walked")); } catch { return []; } };

beforeEach(() => vi.useFakeTimers({ toFake: ["Date"], now: Date.now() }));
afterEach(() => vi.useRealTimers());

describe("the link walk remembered across starts", () => {
  it("a walk is remembered only when every folder it read was last changed more than 3 s before it", () => {
    const p = project();
    p.reads();
    expect(remembered(p.facts)).toEqual([]);
    settle(p.root);
    p.reads();
    expect(remembered(p.facts).length).toBeGreaterThan(0);
  });

  it("while every folder is unchanged the next start takes the links the record names, without a walk", () => {
    const p = project();
    settle(p.root);
    expect(() => p.reads()).not.toThrow();
    // A record (of the module's folder, which holds the node_modules) that names one more link, as a walk would have had it been there: the next start judges it, so it read the record.
    symlinkSync(join(p.elsewhere, "secret.key"), join(p.root, "hop"));
    const file = join(p.facts, "walked", remembered(p.facts).find((f) => readFileSync(join(p.facts, "walked", f), "utf8").includes("pkg/lib"))!);
    const record = JSON.parse(readFileSync(file, "utf8")) as { links: string[] };
    writeFileSync(file, JSON.stringify({ ...record, links: [...record.links, "../hop"] }));
    expect(refusal(() => p.reads())).toContain(`-> ${join(p.elsewhere, "secret.key")}`);
  });

  it("a link planted in a remembered folder is found at the next start, even with the folder's modification time set back", () => {
    const p = project();
    settle(p.root);
    expect(() => p.reads()).not.toThrow();
    expect(remembered(p.facts).length).toBeGreaterThan(0);
    const { mtime } = statSync(p.lib);
    symlinkSync(p.elsewhere, join(p.lib, "planted"));
    // The change time cannot be set back.
    utimesSync(p.lib, mtime, mtime);
    expect(refusal(() => p.reads())).toContain(`${join(p.lib, "planted")} -> ${p.elsewhere}`);
  });

  it("a remembered link's target is resolved again at every start: a link outside the walked folders that now leads elsewhere is refused", () => {
    const p = project();
    // pkg/lib/notes -> outside/hop -> outside/notes.txt; then outside/hop -> elsewhere/secret.key, with nothing under node_modules changed.
    symlinkSync(join(p.outside, "notes.txt"), join(p.outside, "hop"));
    symlinkSync(join(p.outside, "hop"), join(p.lib, "notes"));
    settle(p.root);
    expect(() => p.reads()).not.toThrow();
    expect(remembered(p.facts).length).toBeGreaterThan(0);
    unlinkSync(join(p.outside, "hop"));
    symlinkSync(join(p.elsewhere, "secret.key"), join(p.outside, "hop"));
    expect(refusal(() => p.reads())).toContain(`${join(p.lib, "notes")} -> ${join(p.elsewhere, "secret.key")}`);
  });
});
