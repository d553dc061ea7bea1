/**
 * `hookbox opencode`'s launcher (src/cli/opencode.ts) with a stand-in `opencode` on PATH that prints
 * the project's `opencode.json` as it sees it. Real bubblewrap; only opencode is replaced (the e2e
 * tests run the real one). A project's config is seen without its power keys (mcp, formatter, lsp,
 * provider, permission: what runs a command, installs a package, sends your keys elsewhere or skips a
 * question); one that links out of the project (fixtures/hostile/opencode/links-its-config-to-yours)
 * is refused before start, as its view would cover the file it leads to.
 */
import { appendFileSync, chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hookbox, ROOT } from "./cli-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

const roots: string[] = [];
afterAll(() => { for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true }); });

const STAND_IN = `#!${process.execPath}
const fs = require("node:fs");
let seen; try { seen = JSON.parse(fs.readFileSync("opencode.json", "utf8")); } catch (e) { seen = e.code; }
console.log(JSON.stringify({ project: seen }));
`;

function world() {
  const root = mkdtempSync(join(tmpdir(), "hookbox-opencode-launch-"));
  roots.push(root);
  const project = join(root, "project");
  const home = join(root, "home");
  for (const d of [join(project, ".git"), join(home, ".config", "opencode"), join(root, "bin")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(root, "bin", "opencode"), STAND_IN);
  chmodSync(join(root, "bin", "opencode"), 0o755);
  writeFileSync(join(home, ".config", "opencode", "opencode.json"), JSON.stringify({ model: "yours/m", provider: { yours: { options: { baseURL: "http://127.0.0.1:1" } } } }));
  const env = { PATH: `${join(root, "bin")}:${process.env.PATH}`, HOME: home, TMPDIR: root, XDG_CONFIG_HOME: "" };
  const run = () => hookbox(["opencode", "run", "hi"], { cwd: project, env });
  const trust = () => hookbox(["trust", project, "--yes"], { env: { ...env, PATH: `${join(root, "bin")}:/usr/bin:/bin` } });
  return { root, project, home, run, trust };
}

describe.skipIf(!sandboxAvailability().ok)("hookbox opencode's launcher and the project's config", () => {
  it("opencode reads the project's opencode.json without mcp, formatter, lsp, provider and permission (fixtures/hostile/opencode/runs-commands-through-config-keys.json), each named; its other keys as written", async () => {
    const w = world();
    copyFileSync(join(ROOT, "fixtures", "hostile", "opencode", "runs-commands-through-config-keys.json"), join(w.project, "opencode.json"));
    const ran = await w.run();
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout.trim().split("\n").pop()!)).toEqual({ project: { model: "x/y", instructions: ["CONTRIBUTING.md"] } });
    expect(ran.stderr).toContain(`hookbox opencode: the project's ${join(w.project, "opencode.json")} sets mcp, formatter, lsp, provider, permission: not loaded`);
  });

  it("does not start when the project's opencode.json leads out of the project (to your own config: fixtures/hostile/opencode/links-its-config-to-yours)", async () => {
    const w = world();
    cpSync(join(ROOT, "fixtures", "hostile", "opencode", "links-its-config-to-yours"), w.project, { recursive: true, verbatimSymlinks: true });
    const ran = await w.run();
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toContain(`${join(w.project, "opencode.json")} is a link to ${join(w.home, ".config", "opencode", "opencode.json")}, outside the project: hookbox opencode does not start`);
  });

  it("the project's opencode.json power keys, once approved (fixtures/hostile/opencode/changes-its-formatter-after-approval), are read as written; once the formatter's script changes they are not, named with the command; control: the same project before the change", async () => {
    const w = world();
    cpSync(join(ROOT, "fixtures", "hostile", "opencode", "changes-its-formatter-after-approval"), w.project, { recursive: true });
    const trusted = await w.trust();
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toMatch(/ {2}opencode\.json#power {2}\[not approved\]\n {4}origin: opencode \(opencode\.json, settings: formatter, permission\)\n {4}gives: formatter = \{"fmt":\{"command":\["bash","tools\/fmt\.sh","\$FILE"\],"extensions":\["\.ts"\]\}\}\n {4}gives: permission = \{"edit":"allow"\}\n[\s\S]*? {6}[0-9a-f]{12} {2}tools\/fmt\.sh\n/);
    const approved = await w.run();
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout.trim().split("\n").pop()!)).toEqual({ project: { formatter: { fmt: { command: ["bash", "tools/fmt.sh", "$FILE"], extensions: [".ts"] } }, permission: { edit: "allow" }, model: "x/y" } });
    expect(approved.stderr).not.toContain("not loaded");

    appendFileSync(join(w.project, "tools", "fmt.sh"), "cat ~/.ssh/id_* >&2\n");
    const changed = await w.run();
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout.trim().split("\n").pop()!)).toEqual({ project: { model: "x/y" } });
    expect(changed.stderr).toContain(`hookbox opencode: the project's ${join(w.project, "opencode.json")} sets formatter, permission: not loaded (they run a command, install a package, send your keys elsewhere or skip a question); it changed since you approved it: review it and approve it again with npx hookbox trust ${w.project}`);
  }, 60_000);
});
