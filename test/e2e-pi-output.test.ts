/**
 * What an extension writes itself (console, process.stdout, process.stderr) reaches pi's stderr
 * through isolate() as it does in pi's own process (pi sends an extension's stdout to its stderr in
 * `-p` and `--mode rpc`, where its stdout is the protocol). pi 0.73.1, headless in a network
 * namespace against the fake model (test/support/pi-agent.ts). Each case has its control: the same
 * extension loaded by pi itself. And a `ctx.ui.custom()` factory pi's RPC UI never calls never runs
 * isolated either (its side effects stay out, as in pi's process).
 */
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/host.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { AT_LOAD, AT_TOOL_CALL, NOTIFICATION } from "../fixtures/hostile/writes-escapes-to-its-output.js";
import { installPi, installPiDir, piUnavailable, piWorld, runPi, type PiRunOptions } from "./support/pi-agent.js";

const unavailable = piUnavailable();
if (unavailable) console.log(`test/e2e-pi-output.test.ts skipped: ${unavailable}`);
const sandbox = sandboxAvailability();
let cli: string;
let examples: string;

/**
 * pi run once with `module` (copied into a fresh project): loaded by pi itself (`options`
 * undefined), or through `isolate(["./<name>"], options)`.
 */
function run(module: string, options: Record<string, unknown> | undefined, extra: Partial<PiRunOptions> = {}) {
  const world = piWorld();
  const name = module.split("/").pop()!;
  copyFileSync(module, join(world.project, name));
  writeFileSync(join(world.project, "isolated.ts"), `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(["./${name}"], ${JSON.stringify(options ?? {})});\n`);
  return runPi(cli, world, { command: "echo hi", extensions: [options ? "./isolated.ts" : `./${name}`], ...extra });
}

describe.skipIf(unavailable !== undefined)("an extension's own output on pi's stderr (pi 0.73.1)", { timeout: 120_000 }, () => {
  beforeAll(() => {
    cli = installPi();
    examples = join(installPiDir(), "node_modules", "@mariozechner", "pi-coding-agent", "examples", "extensions");
  }, 300_000);

  const escapes = join(ROOT, "fixtures", "hostile", "writes-escapes-to-its-output.ts");
  const notifications = (stdout: string) => stdout.split("\n").filter((l) => l.includes('"method":"notify"')).map((l) => JSON.parse(l).message as string);

  it("control: loaded by pi itself, what the extension writes at load and on a tool call is on pi's stderr, escapes included", () => {
    const own = run(escapes, undefined);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).toBe(`${AT_LOAD}\n${NOTIFICATION}${AT_TOOL_CALL}\n`);
  });

  it("through isolate() with policy trusted pi's stderr is the same, byte for byte", () => {
    const isolated = run(escapes, { policy: "trusted" });
    expect(isolated.code, isolated.stderr).toBe(0);
    expect(isolated.stderr).toBe(`${AT_LOAD}\n${NOTIFICATION}${AT_TOOL_CALL}\n`);
  });

  it.skipIf(!sandbox.ok)("through isolate() with policy untrusted each line is prefixed with the module's name and its escapes are removed", () => {
    const isolated = run(escapes, { policy: "untrusted" });
    expect(isolated.code, isolated.stderr).toBe(0);
    const prefix = "[writes-escapes-to-its-output.ts] ";
    expect(isolated.stderr).toBe(`${prefix}load ABC\n${prefix}${AT_TOOL_CALL}\n`);
  });

  it("pi's notify.ts in --mode rpc: its OSC 777 notification reaches pi's stderr through isolate() (trusted) as when pi loads it (control)", () => {
    const rpc = { steps: [{ type: "prompt", message: "hi" }] };
    const own = run(join(examples, "notify.ts"), undefined, { rpc });
    expect(own.stderr).toBe(NOTIFICATION);
    const isolated = run(join(examples, "notify.ts"), { policy: "trusted" }, { rpc });
    expect(isolated.stderr).toBe(own.stderr);
  });

  it("pi's inline-bash.ts in --mode rpc: its input handler's notification reaches the client through isolate() (trusted) as when pi loads it (control)", () => {
    const rpc = { steps: [{ type: "prompt", message: "What's in !{echo hello}?" }] };
    const own = run(join(examples, "inline-bash.ts"), undefined, { rpc });
    expect(notifications(own.stdout)).toEqual(['Expanded 1 inline command(s):\n!{echo hello} -> "hello"']);
    const isolated = run(join(examples, "inline-bash.ts"), { policy: "trusted" }, { rpc });
    expect(notifications(isolated.stdout)).toEqual(notifications(own.stdout));
  });

  it("a command's ctx.ui.custom() in --mode rpc: pi's UI never calls the factory, so through isolate() (trusted) the factory never runs either (its notification and count absent), as when pi loads it (control)", () => {
    const lazy = join(ROOT, "fixtures", "extensions", "custom-factory-with-a-side-effect.ts");
    const rpc = { steps: [{ type: "prompt", message: "/lazy" }] };
    const own = run(lazy, undefined, { rpc });
    expect(notifications(own.stdout)).toEqual(["ran 0, gave null"]);
    const isolated = run(lazy, { policy: "trusted" }, { rpc });
    expect(notifications(isolated.stdout)).toEqual(notifications(own.stdout));
  });
});
