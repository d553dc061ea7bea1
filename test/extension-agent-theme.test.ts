/**
 * An isolated module that imports pi's own theme module (pi's `theme`, and the components that read
 * it: `DynamicBorder`, `BorderedLoader`, `keyHint`), as pi's handoff.ts and qna.ts examples do, gets
 * the theme the agent uses, in each isolation, also after an `await` in a command and from a timer
 * after the command returned: the module's copy of pi's theme module is loaded afresh in its worker,
 * where pi's main never called `initTheme()` (worker/agent-members.mjs `installAgentTheme`).
 * The control is the same module in pi's own process.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isolate } from "../src/extension/adapter.js";
import { ROOT } from "./helpers/host.js";
import { importPi, installPiDir } from "./support/pi-agent.js";

type Any = any;
let pi: Awaited<ReturnType<typeof importPi>>;
let dir: string;
let module: string;
const runners: Any[] = [];

beforeAll(async () => {
  pi = await importPi(installPiDir());
  pi.initTheme("dark"); // as pi's main does before any extension runs
  dir = mkdtempSync(join(tmpdir(), "hookbox-agent-theme-"));
  module = join(dir, "styles-with-pi-theme.ts");
  const from = (rel: string) => JSON.stringify(join(pi.dist, rel));
  // What handoff.ts and qna.ts do: pi's components, built after an await in a command, and a
  // timer that styles after the command returned.
  writeFileSync(module, `import { theme } from ${from("modes/interactive/theme/theme.js")};
import { DynamicBorder } from ${from("modes/interactive/components/dynamic-border.js")};
export default function (pi: any) {
  pi.registerCommand("styled", {
    handler: async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      pi.appendEntry("styled", { fg: theme.fg("accent", "x"), bold: theme.bold("y"), border: new DynamicBorder().render(4) });
      setTimeout(() => pi.appendEntry("later", { fg: theme.fg("muted", "z") }), 5);
    },
  });
}
`);
}, 300_000);

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.emit({ type: "session_shutdown", reason: "quit" });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `factory` in pi's loader and runner; `/styled` run as pi runs a command; the entries it appended. */
async function runStyled(factory: unknown) {
  const runtime = pi.loader.createExtensionRuntime();
  const entries: Array<[string, unknown]> = [];
  runtime.appendEntry = (type: string, data: unknown) => entries.push([type, data]);
  const extension = await pi.loader.loadExtensionFromFactory(factory, ROOT, undefined, runtime, "<styled>");
  const runner = new pi.Runner([extension], runtime, ROOT, pi.SessionManager.inMemory(ROOT), {});
  runners.push(runner);
  const errors: unknown[] = [];
  runner.onError((e: unknown) => errors.push(e));
  await runner.emit({ type: "session_start", reason: "startup" });
  if (!runner.getCommand("styled")) return { entries, errors };
  await runner.getCommand("styled").handler("", runner.createCommandContext());
  for (let i = 0; i < 200 && !entries.some(([t]) => t === "later"); i++) await new Promise((r) => setTimeout(r, 10));
  return { entries, errors };
}

describe("pi's theme module in an isolated module", { timeout: 60_000 }, () => {
  let native: Awaited<ReturnType<typeof runStyled>>;
  beforeAll(async () => {
    const mod = await import(module);
    native = await runStyled(mod.default);
  });

  it("the control: in pi's process the module styles with pi's theme", () => {
    expect(native.errors).toEqual([]);
    expect(native.entries.map(([t]) => t)).toEqual(["styled", "later"]);
    expect((native.entries[0]![1] as Any).fg).toContain("x\u001b[39m");
  });

  for (const isolation of ["worker", "process", "sandbox"] as const) {
    it(`${isolation} isolation: after an await in a command and from a timer after it, the module's pi theme is the agent's (the same strings)`, async () => {
      // The default (confined) policy, granted only the reading of pi's package.
      const isolated = await runStyled(isolate([module], { isolation, policy: { fsRead: [join(installPiDir(), "node_modules")] } }));
      expect(isolated.errors).toEqual([]);
      expect(isolated.entries).toEqual(native.entries);
    });
  }
});
