/**
 * A differential of plugins written like those published for opencode (fixtures/opencode/published/:
 * a notifier, an env protector, a custom tool, a compaction context, a shell.env injector), loaded
 * as your own (~/.config/opencode/plugins, run as trusted by `hookbox opencode`), by opencode 1.18.33
 * alone and through `hookbox opencode`: each behaves identically, or is refused by name. Two scripted
 * sessions per side: the model runs `echo injected=$HOOKBOX_INJECTED`, then `cat .env`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { installOpencode, opencodeWorld, runOpencode, type OpencodeRun, type OpencodeWorld } from "./support/opencode-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

const sandbox = sandboxAvailability();
const unavailable = agentUnavailable("opencode") ?? (sandbox.ok ? undefined : sandbox.reason);
const P = "fixtures/opencode/published";
const PLUGINS = ["notifier.ts", "env-protection.ts", "custom-tool.ts", "compaction-context.ts", "shell-env.ts"].map((f) => `${P}/${f}`);
const roots: string[] = [];
const sides = ["alone", "hookbox"] as const;
type Side = (typeof sides)[number];
const runs = {} as Record<`${Side}-${"env" | "dotenv"}`, { run: OpencodeRun; world: OpencodeWorld }>;

const output = (run: OpencodeRun) => run.tools.map((t) => t.state.output ?? t.state.error ?? "").join("\n");
const offered = (run: OpencodeRun) => (run.requests.find((r) => (r.body.tools ?? []).length > 0)?.body.tools ?? []).map((t) => (t as { function?: { name?: string } }).function?.name);

describe.skipIf(unavailable)("published-style opencode plugins, as yours: opencode 1.18.33 alone and through hookbox opencode", { timeout: 60_000 }, () => {
  beforeAll(async () => {
    const opencode = installOpencode();
    const session = async (side: Side, name: "env" | "dotenv", command: string) => {
      const root = mkdtempSync(join(tmpdir(), `hookbox-e2e-opencode-published-${side}-`));
      roots.push(root);
      const world = opencodeWorld(root, opencode, [], PLUGINS);
      writeFileSync(join(world.project, ".env"), "API_KEY=in-the-dotenv\n");
      runs[`${side}-${name}`] = { run: await runOpencode(world, { command, hookbox: side === "hookbox" }), world };
    };
    await Promise.all(sides.map(async (side) => {
      await session(side, "env", "echo injected=$HOOKBOX_INJECTED");
      await session(side, "dotenv", "cat .env");
    }));
  }, 400_000);
  afterAll(() => { for (const root of roots) rmSync(root, { recursive: true, force: true }); });

  it("the shell.env injector: identical (the variable reaches the model's command)", () => {
    for (const side of sides) expect(output(runs[`${side}-env`].run), side).toContain("injected=from-the-plugin");
  });

  it("the env protector: identical (cat .env is blocked, the model reads the plugin's message)", () => {
    for (const side of sides) {
      expect(output(runs[`${side}-dotenv`].run), side).toBe("Do not read .env files");
      expect(runs[`${side}-dotenv`].run.texts.join("\n"), side).toContain("TOOL RESULT: Do not read .env files");
    }
  });

  it("the notifier: identical (its event hook writes its note)", () => {
    for (const side of sides) expect(readFileSync(join(runs[`${side}-env`].world.project, "notified.txt"), "utf8"), side).toMatch(/^session\./m);
  });

  it("the custom tool: opencode alone offers it to the model; hookbox opencode refuses it by name", () => {
    expect(offered(runs["alone-env"].run)).toContain("hello_tool");
    expect(offered(runs["hookbox-env"].run)).not.toContain("hello_tool");
    expect(runs["hookbox-env"].run.stderr).toContain(`custom-tool.ts's "tool" hook is not run: custom tools are not run through hookbox opencode yet`);
  });

  it("the compaction context: loaded on both sides, not refused (a short session never compacts, so its hook is not called)", () => {
    expect(runs["hookbox-env"].run.stderr).not.toContain("compaction-context.ts");
  });
});
