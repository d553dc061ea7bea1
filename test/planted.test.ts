/**
 * The one rule of what a written grant may not hold (src/policy/planted.ts): the names git or an
 * agent takes up, at any depth, and the bounded walk that finds them in a granted folder.
 */
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GrantError, parseGrant } from "../src/policy/grants.js";
import { Errors, pathList } from "../src/contract/errors.js";
import { plantedSince, removePlanted, removeUnconfined, takenUp, takenUpEntries, WALK_BOUND, WalkTooLarge } from "../src/policy/planted.js";
import { removeInside } from "../src/isolation/bubblewrap/confined-remove.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { tempDir } from "./helpers/files.js";

describe("names git or an agent takes up", () => {
  it("are taken up at any depth, by a whole part of the path, never by a part of a name", () => {
    for (const [rel, part] of [[".git", ".git"], ["logs/.git/config", ".git"], ["logs/a/.claude/skills/x/SKILL.md", ".claude"], ["logs/.envrc", ".envrc"], ["logs/.mcp.json", ".mcp.json"],
      ["docs/CLAUDE.md", "CLAUDE.md"], ["a/CLAUDE.local.md", "CLAUDE.local.md"], ["a/b/AGENTS.md", "AGENTS.md"], ["AGENTS.override.md", "AGENTS.override.md"], ["x/GEMINI.md", "GEMINI.md"], ["logs/HEAD", "HEAD"], ["logs/.pi/extensions/x.ts", ".pi"]] as const) {
      expect(takenUp(rel), rel).toBe(part);
    }
    for (const rel of ["logs/hook.log", "logs/git/config", "logs/claude/SKILL.md", "logs/my.git", "logs/.gitignore", "logs/CLAUDE.md.bak", "logs/agents.md", "logs/head"]) expect(takenUp(rel), rel).toBeUndefined();
  });

  it("a write: grant naming one at any depth is refused by name", () => {
    for (const bad of ["write:logs/.git", "write:a/b/.claude", "write:docs/CLAUDE.md", "write:x/.envrc/y"]) expect(() => parseGrant(bad, "/p"), bad).toThrow(GrantError);
    expect(() => parseGrant("write:logs/.git", "/p")).toThrow(".git is where git or an agent runs code or reads instructions from");
    expect(parseGrant("write:logs/git", "/p").text).toBe("write:logs/git");
  });
});

describe("what a planted failure names", () => {
  it("the hook's own paths, bounded: the first 5, each cut to 200 characters, and how many more (a hook chooses how many and how long)", () => {
    const long = `logs/${"d".repeat(400)}/.git`;
    const paths = [long, ...Array.from({ length: 6 }, (_, i) => `logs/${i}/.claude`)];
    const failure = Errors.planted("/p/hook.sh", "PreToolUse", paths);
    expect(failure.code).toBe("effect_refused");
    expect(failure.message).toContain("logs/0/.claude, logs/1/.claude, logs/2/.claude, logs/3/.claude and 2 more in a folder it may write");
    expect(failure.message).not.toContain("logs/4/.claude");
    expect(failure.message).not.toContain(long);
    expect(failure.message).toContain(long.slice(0, 150));
    expect(pathList(["a/.git"])).toBe("a/.git");
  });
});

describe("the walk of a granted folder", () => {
  it("finds each one with its identity, does not enter it nor follow a link, and tells a new or replaced one from one that was there or moved", () => {
    const d = tempDir("hookbox-planted-");
    mkdirSync(join(d, "a", ".git", "hooks"), { recursive: true });
    writeFileSync(join(d, "a", ".git", "hooks", "AGENTS.md"), "");
    symlinkSync("notes.md", join(d, "a", "CLAUDE.md"));
    writeFileSync(join(d, "a", "log"), "");
    mkdirSync(join(d, "out", ".claude"), { recursive: true });
    symlinkSync(join(d, "out"), join(d, "link"));
    const before = takenUpEntries(join(d, "a"));
    expect([...before.keys()].sort()).toEqual([".git", "CLAUDE.md"]);
    expect([...takenUpEntries(d).keys()].sort()).toEqual(["a/.git", "a/CLAUDE.md", "out/.claude"]);
    expect(plantedSince(before, takenUpEntries(join(d, "a")))).toEqual([]);
    mkdirSync(join(d, "a", "b", ".claude"), { recursive: true });
    // A link replaced by one to another file (its inode may be reused): new.
    rmSync(join(d, "a", "CLAUDE.md"));
    symlinkSync("evil.md", join(d, "a", "CLAUDE.md"));
    expect(plantedSince(before, takenUpEntries(join(d, "a")))).toEqual(["CLAUDE.md", "b/.claude"]);
    // Moved with its folder: the same entry, so not the hook's to be removed.
    mkdirSync(join(d, "c"));
    renameSync(join(d, "a", ".git"), join(d, "c", ".git"));
    mkdirSync(join(d, "a", "c"));
    renameSync(join(d, "c", ".git"), join(d, "a", "c", ".git"));
    expect(plantedSince(before, takenUpEntries(join(d, "a")))).toEqual(["CLAUDE.md", "b/.claude"]);
  });

  it(`reads at most ${WALK_BOUND} entries, then fails naming the folder and the bound`, () => {
    const d = tempDir("hookbox-planted-large-");
    for (let i = 0; i < 12; i++) writeFileSync(join(d, `f${i}`), "");
    expect(takenUpEntries(d, 12).size).toBe(0);
    expect(() => takenUpEntries(d, 11)).toThrow(WalkTooLarge);
    expect(() => takenUpEntries(d, 11)).toThrow(`${d} holds more than 11 entries, which hookbox reads before and after each run for names git or an agent takes up (.git, .claude, CLAUDE.md…); grant a smaller folder`);
  });
});

describe("the removal of what a hook planted", () => {
  /** A granted folder `logs` holding a new `a/.claude` and a link `b` to a folder outside it that holds a `.claude` of its own. */
  function world() {
    const d = tempDir("hookbox-planted-remove-");
    const logs = join(d, "logs");
    mkdirSync(join(logs, "a", ".claude"), { recursive: true });
    mkdirSync(join(d, "outside", ".claude"), { recursive: true });
    writeFileSync(join(d, "outside", ".claude", "settings.json"), "{}");
    symlinkSync(join(d, "outside"), join(logs, "b"));
    return { d, logs };
  }

  it("removes what is new, in rounds until none is left, and says what it could not remove", () => {
    const { logs } = world();
    expect(removePlanted(logs, new Map(), removeUnconfined)).toEqual({ removed: ["a/.claude"], left: [] });
    expect(existsSync(join(logs, "a", ".claude"))).toBe(false);
    mkdirSync(join(logs, "c", ".git"), { recursive: true });
    expect(removePlanted(logs, new Map(), () => {})).toEqual({ removed: ["c/.git"], left: ["c/.git"] });
  });

  it("unconfined, a path below a link is not removed (the link may lead out of the folder)", () => {
    const { d, logs } = world();
    removeUnconfined(logs, [join(logs, "b", ".claude")]);
    expect(existsSync(join(d, "outside", ".claude", "settings.json"))).toBe(true);
  });

  it.skipIf(!sandboxAvailability().ok)("confined to the folder, a removal that a link swapped in leads outside it removes nothing there", () => {
    const { d, logs } = world();
    removeInside(logs, [join(logs, "b", ".claude"), join(logs, "a", ".claude")]);
    expect(existsSync(join(d, "outside", ".claude", "settings.json"))).toBe(true);
    expect(existsSync(join(logs, "a", ".claude"))).toBe(false);
    // Control: the same removal unconfined by anything (rm -rf on the path) would have reached it.
    rmSync(join(logs, "b", ".claude"), { recursive: true, force: true });
    expect(existsSync(join(d, "outside", ".claude"))).toBe(false);
  });
});
