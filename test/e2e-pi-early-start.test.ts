/**
 * The real agent, `pi -p` 0.73.1 (headless, in a network namespace with only loopback, against the
 * fake model): isolate()'s start that mirrors the previous one (src/extension/starts.ts,
 * docs/internals.md "How isolate() starts"). A module whose file does not change but whose
 * registrations do (they come from a JSON file it reads) still guards at the next start, is not
 * refused, and the agent is told once what changed; the start after that mirrors what it
 * registers now. The control: the first start, where the guard is the same, and the tool the
 * module no longer registers, which answers an error.
 *
 * At a first start (no record), a module whose source shows event handlers only is mirrored from
 * that reading (src/extension/reading.ts): a guard that hangs at load does not hold pi's first
 * request, and its tool call is blocked (timeout); a command it hides from the reading (a name
 * built at run time) is named in the warning and is pi's at the next start, from the record.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/host.js";
import { installPi, piUnavailable, piWorld, runPi, victim } from "./support/pi-agent.js";

const unavailable = piUnavailable();
if (unavailable) console.log(`test/e2e-pi-early-start.test.ts skipped: ${unavailable}`);

let cli: string;

describe.skipIf(unavailable !== undefined)("isolate() mirrors pi's previous start (pi 0.73.1, pi -p)", { timeout: 180_000 }, () => {
  beforeAll(() => { cli = installPi(); }, 300_000);

  it("a module whose registrations changed keeps guarding, is not refused, is named in one warning, and the next start mirrors it", () => {
    const world = piWorld();
    const says = join(world.project, "registers.json");
    const module = join(world.project, "changes.mjs");
    writeFileSync(module, `import { readFileSync } from "node:fs";
const says = JSON.parse(readFileSync(${JSON.stringify(says)}, "utf8"));
export default function (pi) {
  pi.registerTool({ name: says.tool, label: says.tool, description: "answers its name", parameters: { type: "object", properties: {} },
    async execute() { return { content: [{ type: "text", text: "answered by " + says.tool }], details: {} }; } });
  pi.on("tool_call", (event) => (String(event.input?.command ?? "").startsWith("rm -rf") ? { block: true, reason: "blocked by " + says.tool } : undefined));
}
`);
    const file = join(world.project, "isolated.ts");
    const options = { policy: { fsRead: [world.project] }, transformCacheDir: join(world.home, "hookbox-cache") };
    writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify([module])}, ${JSON.stringify(options)});\n`);
    const dir = victim(world);
    const WARNING = "registered otherwise than at the agent's previous start";

    // First start: nothing recorded; the guard blocks.
    writeFileSync(says, JSON.stringify({ tool: "first_tool" }));
    const first = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [file] });
    expect(first.code, first.stderr).toBe(0);
    expect(first.toolResult).toContain("blocked by first_tool");
    expect(first.stderr).not.toContain(WARNING);

    // Second start mirrors first_tool; the module now registers second_tool. The guard still blocks, nothing is refused.
    writeFileSync(says, JSON.stringify({ tool: "second_tool" }));
    const second = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [file] });
    expect(second.code, second.stderr).toBe(0);
    expect(second.toolResult).toContain("blocked by second_tool");
    expect(second.stderr).toContain(`hookbox: ${module} ${WARNING}`);
    expect(second.stderr).toContain(`tool "first_tool" no longer registered`);
    expect(second.stderr).not.toMatch(/did not load|fail closed/);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);

    // Third start mirrors second_tool: the model's call of it runs in the module; no warning.
    const third = runPi(cli, world, { command: "", tool: { name: "second_tool", arguments: {} }, extensions: [file] });
    expect(third.code, third.stderr).toBe(0);
    expect(third.toolResult).toContain("answered by second_tool");
    expect(third.stderr).not.toContain(WARNING);

    // Control: the tool it no longer registers is not in pi's tool list (third start), so the model's call of it fails.
    const control = runPi(cli, world, { command: "", tool: { name: "first_tool", arguments: {} }, extensions: [file] });
    expect(control.toolResult).not.toContain("answered by");
  });

  it("at a first start an event-only guard that hangs at load does not hold pi's first request, and the model's rm -rf is blocked (timeout); control: the same guard naming registerFlag holds the start, reported at session_start", () => {
    const world = piWorld();
    const hangs = join(ROOT, "fixtures", "hostile", "hangs-at-load-guarding-tool-calls.ts");
    const control = join(world.project, "hangs-unread.ts");
    writeFileSync(control, readFileSync(hangs, "utf8").replace(`pi.on("tool_call"`, `if (Date.now() < 0) pi.registerFlag("never", { type: "boolean" });\n  pi.on("tool_call"`));
    const dir = victim(world);
    const run = (module: string) => {
      const file = join(world.project, `isolated-${module === hangs ? "read" : "unread"}.ts`);
      const options = { deadlines: { load: 1_500 }, transformCacheDir: join(world.home, `cache-${module === hangs ? "read" : "unread"}`) };
      writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify([module])}, ${JSON.stringify(options)});\n`);
      return runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [file] });
    };
    const read = run(hangs);
    expect(read.requests.length, read.stderr).toBeGreaterThanOrEqual(1);
    expect(read.toolResult).toContain(`hookbox: blocked because isolated extension ${hangs} (timeout) did not load (fail closed)`);
    expect(read.stderr).toContain(`hookbox: ${hangs}: timeout in load`);
    // Not known when pi sent session_start: the start did not wait for it.
    expect(read.stderr).not.toContain(`${hangs} did not load (timeout)`);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);

    const unread = run(control);
    expect(unread.toolResult).toContain(`hookbox: blocked because isolated extension ${control} (timeout) did not load (fail closed)`);
    expect(unread.stderr).toContain(`${control} did not load (timeout)`);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
  });

  it("a command an event-only module hides from the reading (a name built at run time) is named in the first start's warning, and the next start has it, from the record", () => {
    const world = piWorld();
    const module = join(world.project, "hides-a-command.mjs");
    writeFileSync(module, `export default function (pi) {
  pi.on("tool_call", (event) => (String(event.input?.command ?? "").startsWith("rm -rf") ? { block: true, reason: "blocked by the hider" } : undefined));
  pi["regis" + "terCommand"]("hidden", { description: "hidden from the reading", handler: async () => {} });
}
`);
    const file = join(world.project, "isolated.ts");
    const options = { transformCacheDir: join(world.home, "hookbox-cache") };
    writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify([module])}, ${JSON.stringify(options)});\n`);
    const dir = victim(world);
    const asked = (r: ReturnType<typeof runPi>) => r.requests.some((q) => JSON.stringify(q.body.messages ?? []).includes("/hidden"));

    // First start: mirrored from the reading; the command came too late for pi, so "/hidden" went to the model as text.
    const first = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [file], prompts: ["/hidden"] });
    expect(first.code, first.stderr).toBe(0);
    expect(first.toolResult).toContain("blocked by the hider");
    expect(first.stderr).toContain(`hookbox: ${module} registered otherwise than a reading of its source found, which this start mirrored while the module loaded: `
      + `command "hidden" not registered in the agent until it starts again (the agent takes commands, flags and shortcuts only at load)`);
    expect(asked(first)).toBe(true);

    // Second start: mirrored from the record, with the command; pi runs it; no warning.
    const second = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [file], prompts: ["/hidden"] });
    expect(second.code, second.stderr).toBe(0);
    expect(second.toolResult).toContain("blocked by the hider");
    expect(second.stderr).not.toContain("registered otherwise");
    expect(asked(second)).toBe(false);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
  });

  it("at a first start a module that registers a command is read: pi has the command when its factory returns, and /greet runs the handler in the module (not sent to the model), with no warning", () => {
    const world = piWorld();
    const ran = join(world.project, "greeted.txt");
    const module = join(world.project, "greets.mjs");
    writeFileSync(module, `import { writeFileSync } from "node:fs";
export default function (pi) {
  pi.registerCommand("greet", { description: "writes a file", handler: async (args) => { writeFileSync(${JSON.stringify(ran)}, "greeted " + args); } });
  pi.on("tool_call", (event) => (String(event.input?.command ?? "").startsWith("rm -rf") ? { block: true, reason: "blocked by the greeter" } : undefined));
}
`);
    const file = join(world.project, "isolated.ts");
    const options = { policy: { fsWrite: [world.project] }, transformCacheDir: join(world.home, "hookbox-cache") };
    writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify([module])}, ${JSON.stringify(options)});\n`);
    const dir = victim(world);
    const first = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [file], prompts: ["/greet you"] });
    expect(first.code, first.stderr).toBe(0);
    expect(first.toolResult).toContain("blocked by the greeter");
    expect(readFileSync(ran, "utf8")).toBe("greeted you");
    // Control (the hider above): a command pi does not have when the factory returns goes to the model as text.
    expect(first.requests.some((q) => JSON.stringify(q.body.messages ?? []).includes("/greet"))).toBe(false);
    expect(first.stderr).not.toContain("registered otherwise");
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
  });
});
