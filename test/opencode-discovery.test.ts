/** src/opencode/discovery.ts: what opencode 1.18.33 would load for a project, by its own rules, and what hookbox opencode hides from it. */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { discoverOpencode, npmName } from "../src/opencode/discovery.js";
import { tempDir, writeHook } from "./helpers/files.js";
import { ROOT } from "./cli-run.js";

const PLUGIN = "export default { id: 'x', server: async () => ({}) };\n";

function world() {
  const root = tempDir("hookbox-opencode-discovery-");
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  return { root, home, project, env: { HOME: home } };
}

describe("opencode discovery", () => {
  it("finds plugin files in every config folder's plugin/ and plugins/ (.ts and .js, one level), the user's before the project's, and names their origin", () => {
    const w = world();
    const user = writeHook(w.home, ".config/opencode/plugins/notify.ts", PLUGIN);
    const a = writeHook(w.project, ".opencode/plugin/a.js", PLUGIN);
    const b = writeHook(w.project, ".opencode/plugins/b.ts", PLUGIN);
    writeHook(w.project, ".opencode/plugins/not-a-plugin.mjs", PLUGIN);
    writeHook(w.project, ".opencode/plugins/deeper/c.ts", PLUGIN);
    const home = writeHook(w.home, ".opencode/plugins/home.ts", PLUGIN);
    const found = discoverOpencode(w.project, w.env);
    expect(found.plugins.map((p) => [p.path, p.origin])).toEqual([[user, "user"], [a, "project"], [b, "project"], [home, "user"]]);
  });

  it("hides every folder that holds plugins or tools, and lists the tools, which are not loaded", () => {
    const w = world();
    writeHook(w.project, ".opencode/plugins/a.ts", PLUGIN);
    const tool = writeHook(w.project, ".opencode/tools/t.ts", "export default {};\n");
    writeHook(w.home, ".config/opencode/plugin/u.ts", PLUGIN);
    const found = discoverOpencode(w.project, w.env);
    expect(found.hide.sort()).toEqual([join(w.home, ".config/opencode/plugin"), join(w.project, ".opencode/plugins"), join(w.project, ".opencode/tools")].sort());
    expect(found.tools).toEqual([{ path: tool, origin: "project" }]);
  });

  it("reads plugin specs from config files (JSONC), resolves a file against its config file (.opencode/opencode.json against the project), and gives opencode a copy without them", () => {
    const w = world();
    writeHook(w.project, "opencode.jsonc", `{\n  "plugin": ["./scripts/p.ts", ["opencode-notifier@1.2.0", { "sound": true }]],\n  // the project's\n  "model": "x/y",\n}\n`);
    writeHook(w.project, ".opencode/opencode.json", JSON.stringify({ plugin: ["./lib/q.ts"] }));
    const found = discoverOpencode(w.project, w.env);
    expect(found.plugins.map((p) => [p.path, p.kind, p.origin])).toEqual([
      [join(w.project, "scripts/p.ts"), "file", "project"],
      ["opencode-notifier@1.2.0", "npm", "project"],
      [join(w.project, "lib/q.ts"), "file", "project"],
    ]);
    expect(found.plugins[1]!.options).toEqual({ sound: true });
    const copy = found.filtered.find((f) => f.path === join(w.project, "opencode.jsonc"))!;
    expect(copy.content).toContain('"model": "x/y"');
    expect(copy.content).not.toContain("plugin");
  });

  it("gives opencode a project's config without the keys that run a command, install a package, send your keys elsewhere or skip a question (fixtures/hostile/opencode/runs-commands-through-config-keys.json: mcp, formatter, lsp, provider, permission), with their values for the approval and the file without its plugins only, shown once they are approved; your own config keeps them", () => {
    const w = world();
    const hostile = readFileSync(join(ROOT, "fixtures", "hostile", "opencode", "runs-commands-through-config-keys.json"), "utf8");
    writeHook(w.project, "opencode.json", hostile);
    writeHook(w.project, ".opencode/opencode.jsonc", hostile);
    writeHook(w.home, ".config/opencode/opencode.json", hostile);
    const found = discoverOpencode(w.project, w.env);
    for (const file of [join(w.project, "opencode.json"), join(w.project, ".opencode/opencode.jsonc")]) {
      const f = found.filtered.find((c) => c.path === file)!;
      expect(JSON.parse(f.content)).toEqual({ model: "x/y", instructions: ["CONTRIBUTING.md"] });
      expect(Object.keys(f.power!)).toEqual(["mcp", "formatter", "lsp", "provider", "permission"]);
      expect(JSON.parse(f.withPower!)).toEqual(JSON.parse(hostile));
    }
    // Control: the user's own config names no plugin and is not filtered.
    expect(found.filtered.map((f) => f.path)).not.toContain(join(w.home, ".config/opencode/opencode.json"));
  });

  it("keeps the same plugin once, at its last place (a file by its path, a package by its name)", () => {
    const w = world();
    const shared = writeHook(w.project, ".opencode/plugins/shared.ts", PLUGIN);
    writeHook(w.home, ".config/opencode/opencode.json", JSON.stringify({ plugin: ["left-pad@1.0.0", shared] }));
    writeHook(w.project, "opencode.json", JSON.stringify({ plugin: ["left-pad@2.0.0"] }));
    const found = discoverOpencode(w.project, w.env);
    expect(found.plugins.map((p) => p.path)).toEqual(["left-pad@2.0.0", shared]);
    expect(npmName("@scope/name@1.2.3")).toBe("@scope/name");
  });

  it("a config file that is not JSON(C) is hidden whole (an empty config) and named", () => {
    const w = world();
    writeHook(w.project, "opencode.json", "{ plugin: [");
    const found = discoverOpencode(w.project, w.env);
    expect(found.filtered).toEqual([{ path: join(w.project, "opencode.json"), content: "{}", origin: "project" }]);
    expect(found.problems.join("\n")).toContain("is not valid JSON(C)");
  });
});
