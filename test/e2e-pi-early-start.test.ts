/**
 * The real agent, `pi -p` 0.73.1 (headless, in a network namespace with only loopback, against the
 * fake model): isolate()'s start that mirrors the previous one (src/extension/starts.ts,
 * docs/internals.md "How isolate() starts"). A module whose file does not change but whose
 * registrations do (they come from a JSON file it reads) still guards at the next start, is not
 * refused, and the agent is told once what changed; the start after that mirrors what it
 * registers now. The control: the first start, where the guard is the same, and the tool the
 * module no longer registers, which answers an error.
 */
import { existsSync, writeFileSync } from "node:fs";
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
});
