/**
 * The built package starts each hook runtime from one file (scripts/bundle-runtime.mjs, picked by
 * src/isolation/spawn.ts): loaded from hookbox built as it ships (`builtHookbox`), a guard in each
 * mode runs inside `entry-thread.bundle.cjs` or `entry-process.bundle.cjs` (its handler's stack
 * names the runtime file that called it) and guards as from the source tree, whose tests run the
 * modules themselves. The control: the same guard from the source tree runs in `run.mjs`.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { tempDir } from "./helpers/files.js";
import { ROOT } from "./helpers/host.js";
import { builtHookbox } from "./support/pi-run.js";

const GUARD = `export default function (pi) {
  pi.on("tool_call", (event) => {
    // The first of hookbox's runtime files on the handler's stack: the file that called it.
    const runtime = /\\/worker\\/([\\w.-]+\\.[cm]js)/.exec(new Error().stack ?? "")?.[1] ?? "none";
    return event.input.command === "rm -rf /" ? { block: true, reason: "blocked in " + runtime } : undefined;
  });
}
`;

/** Loads the guard from `entry` (hookbox's index) in each mode, in a fresh node; what each tool call answered. */
function guardIn(entry: string, modes: string[]): Record<string, unknown> {
  const dir = tempDir("hookbox-built-runtime-");
  writeFileSync(join(dir, "guard.mjs"), GUARD);
  const main = join(dir, "main.mjs");
  writeFileSync(main, `import { HookRunner, createModelRegistry, createSessionManager, loadHooks } from ${JSON.stringify(entry)};
const out = {};
for (const isolation of ${JSON.stringify(modes)}) {
  const { hooks, errors } = await loadHooks(["./guard.mjs"], process.cwd(), { isolation });
  const runner = new HookRunner(hooks, process.cwd(), createSessionManager(), createModelRegistry());
  const blocked = await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "rm -rf /" } });
  const allowed = await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "2", input: { command: "ls" } });
  await runner.dispose();
  out[isolation] = { errors, blocked, allowed: allowed ?? null };
}
console.log(JSON.stringify(out));
process.exit(0);
`);
  const tsx = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
  const args = entry.endsWith(".ts") ? [tsx, main] : [main];
  return JSON.parse(execFileSync(process.execPath, args, { cwd: dir, encoding: "utf8", timeout: 120_000 }).trim().split("\n").pop()!);
}

const modes = sandboxAvailability().ok ? ["worker", "process", "sandbox"] : ["worker", "process"];

describe("the built package's one-file runtimes", { timeout: 300_000 }, () => {
  it(`a guard loaded from the built package runs in the bundle of its mode and guards (${modes.join(", ")})`, () => {
    const built = builtHookbox("built-runtime-test");
    const out = guardIn(join(built, "dist", "host", "index.js"), modes);
    for (const mode of modes) {
      const file = mode === "worker" ? "entry-thread.bundle.cjs" : "entry-process.bundle.cjs";
      expect(out[mode]).toEqual({ errors: [], blocked: { block: true, reason: `blocked in ${file}` }, allowed: null });
    }
  });

  it("control: from the source tree the same guard runs in the runtime's own modules", () => {
    const out = guardIn(join(ROOT, "src", "index.ts"), ["worker"]);
    expect(out.worker).toEqual({ errors: [], blocked: { block: true, reason: "blocked in run.mjs" }, allowed: null });
  });
});
