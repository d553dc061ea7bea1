/**
 * src/opencode/plugin.ts, hookbox's one plugin inside opencode, driven as opencode drives it (its
 * `server()` with a plan, then its hooks with opencode's live objects), each plugin in a real process
 * on the opencode binary as Bun: what a project's plugin is offered, what reaches opencode's objects.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import plugin from "../src/opencode/plugin.js";
import type { OpencodePlan } from "../src/opencode/plan.js";
import type { PluginUnit } from "../src/opencode/discovery.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { installOpencode } from "./support/opencode-run.js";
import { tempDir } from "./helpers/files.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const H = join(ROOT, "fixtures", "hostile", "opencode");
const sandbox = sandboxAvailability();
let stderr = "";
const saved = process.env.HOOKBOX_OPENCODE_PLAN;

async function start(plugins: PluginUnit[]) {
  const dir = tempDir("hookbox-opencode-plugin-");
  const plan: OpencodePlan = { project: dir, bun: installOpencode(), child: join(ROOT, "src", "opencode", "child.mjs"), deadlineMs: 3000, plugins };
  writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
  process.env.HOOKBOX_OPENCODE_PLAN = join(dir, "plan.json");
  const hooks = await plugin.server({ directory: dir, worktree: dir, project: {}, serverUrl: new URL("http://localhost:4096") });
  return hooks as Record<string, (input: unknown, output?: Record<string, unknown>) => Promise<void>>;
}
const unit = (fixture: string, origin: "user" | "project"): PluginUnit => ({ path: join(H, fixture), kind: "file", origin, from: "test" });

describe.skipIf(!sandbox.ok)("hookbox's opencode plugin", { timeout: 60_000 }, () => {
  beforeAll(() => {
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => { stderr += String(chunk); return true; });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    if (saved === undefined) delete process.env.HOOKBOX_OPENCODE_PLAN; else process.env.HOOKBOX_OPENCODE_PLAN = saved;
  });

  it("a project's plugin is not offered shell.env (effect_refused, named), while its other hooks run", async () => {
    const hooks = await start([unit("injects-shell-env.ts", "project")]);
    expect(stderr).toContain(`injects-shell-env.ts's "shell.env" hook is not offered to a project's plugin`);
    expect(stderr).toContain("(effect_refused)");
    expect(Object.keys(hooks)).not.toContain("shell.env");
    const output = { args: { command: "ls" } };
    await hooks["tool.execute.before"]!({ tool: "bash", sessionID: "s", callID: "c" }, output);
    expect(output).toEqual({ args: { command: "ls" } });
    await hooks.dispose!(undefined);
  });

  it("your plugin's shell.env edit reaches opencode's own env object", async () => {
    const hooks = await start([unit("injects-shell-env.ts", "user")]);
    const env: Record<string, string> = {};
    await hooks["shell.env"]!({ cwd: "/p" }, { env });
    expect(env).toEqual({ NODE_OPTIONS: "--require /tmp/evil.js" });
    await hooks.dispose!(undefined);
  });

  it("your plugin's args rewrite is applied into the args object opencode runs; an approved project's is refused and the call blocked (effect_refused); an unapproved one blocks the call (not_approved)", async () => {
    const user = await start([unit("rewrites-bash-command.ts", "user")]);
    const args = { command: "echo mine", description: "d" };
    await user["tool.execute.before"]!({ tool: "bash", sessionID: "s", callID: "c" }, { args });
    expect(args).toEqual({ command: "echo REWRITTEN-BY-PLUGIN > rewritten.txt", description: "d" });
    await user.dispose!(undefined);
    const project = await start([unit("rewrites-bash-command.ts", "project")]);
    const kept = { command: "ls" };
    await expect(project["tool.execute.before"]!({ tool: "bash", sessionID: "s", callID: "c" }, { args: kept })).rejects.toThrow(/output\.args.*\(effect_refused\)/);
    expect(kept).toEqual({ command: "ls" });
    await project.dispose!(undefined);
    // A project's plugin runs only approved; the plan carries the launcher's check, so an unapproved one never starts.
    const refused = await start([{ ...unit("rewrites-bash-command.ts", "project"), refusal: { code: "not_approved", message: "not approved" } }]);
    await expect(refused["tool.execute.before"]!({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: "ls" } })).rejects.toThrow("(not_approved)");
  });

  it("an output its hook's schema refuses is not applied and blocks the tool call (invalid_result), even from your own plugin, whose valid rewrite is applied (above)", async () => {
    const hooks = await start([unit("answers-args-of-the-wrong-shape.ts", "user")]);
    const output = { args: { command: "ls" } };
    await expect(hooks["tool.execute.before"]!({ tool: "bash", sessionID: "s", callID: "c" }, output)).rejects.toThrow("(invalid_result)");
    expect(output).toEqual({ args: { command: "ls" } });
    await hooks.dispose!(undefined);
  });
});
