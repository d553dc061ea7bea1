/**
 * pi's own examples in pi 0.73.1 driven in `--mode rpc` (pi's docs/rpc.md), once in pi's process
 * (the control: what the person sees) and once through `isolate([example], { policy: "trusted" })`:
 * - send-user-message.ts: `/ask` answers before the turn its `pi.sendUserMessage` starts, as in pi's
 *   process (the isolated command's effects reach pi with its answer, src/isolation/channel.ts);
 * - qna.ts: `/qna` builds pi's `BorderedLoader` with pi's theme in the module's worker;
 * - shutdown-command.ts: `/quit`'s `ctx.shutdown()` reaches pi, which in RPC mode reads it after the
 *   next command, as it does for an extension in its own process that shuts down after an await.
 * - a message an `agent_end` handler sends before any await (plan-mode.ts's shape) is queued for the
 *   next run in pi's process and shown at once isolated: the one ordering pi decides within
 *   microtasks that a module in another thread cannot reach (docs/differences.md).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/host.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { installPi, installPiDir, piUnavailable, piWorld, runPi, type PiRun, type PiWorld } from "./support/pi-agent.js";

const unavailable = piUnavailable();
if (unavailable) console.log(`test/e2e-pi-order.test.ts skipped: ${unavailable}`);
const sandbox = sandboxAvailability();

let cli: string;
let examples: string;

/** The one-line file a user passes with -e. */
function isolated(world: PiWorld, module: string, options: Record<string, unknown>): string {
  const file = join(world.project, "isolated.ts");
  writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify([module])}, ${JSON.stringify(options)});\n`);
  return file;
}

/** pi in RPC mode with `extension`, the steps written one by one. */
function session(extension: (world: PiWorld) => string, steps: Array<Record<string, unknown>>): PiRun {
  const world = piWorld();
  return runPi(cli, world, { command: "echo hi", extensions: [extension(world)], rpc: { steps } });
}

const example = (name: string) => join(examples, name);
/** Where in pi's output the answer to step `n` and the first `agent_start` are. */
const where = (run: PiRun, n: number) => ({
  answer: run.events.findIndex((e) => e.type === "response" && e.id === `step-${n}`),
  agentStart: run.events.findIndex((e) => e.type === "agent_start"),
});

describe.skipIf(unavailable !== undefined)("pi's examples in RPC mode, isolated as in pi's process", { timeout: 180_000 }, () => {
  beforeAll(() => {
    cli = installPi();
    examples = join(installPiDir(), "node_modules", "@mariozechner", "pi-coding-agent", "examples", "extensions");
  }, 300_000);

  it("send-user-message.ts: /ask answers before the turn it starts, isolated (worker, sandbox) as in pi's process", () => {
    const steps = [{ type: "prompt", message: "/ask What is 2+2?" }];
    const control = session(() => example("send-user-message.ts"), steps);
    expect(control.code, control.stderr).toBe(0);
    const native = where(control, 1);
    expect(native.agentStart).toBeGreaterThan(-1);
    expect(native.answer).toBeLessThan(native.agentStart);
    for (const isolation of ["worker", ...(sandbox.ok ? ["sandbox"] : [])]) {
      const run = session((w) => isolated(w, example("send-user-message.ts"), { policy: "trusted", isolation }), steps);
      expect(run.code, run.stderr).toBe(0);
      const at = where(run, 1);
      expect(at.agentStart, isolation).toBeGreaterThan(-1);
      expect(at.answer, `${isolation}: the answer to /ask came after agent_start`).toBeLessThan(at.agentStart);
      expect(JSON.stringify(run.requests.at(-1)?.body.messages)).toContain("What is 2+2?");
    }
  });

  it("qna.ts: /qna builds pi's BorderedLoader with pi's theme in the module's worker, and ends as in pi's process", () => {
    const steps = [{ type: "prompt", message: "hi" }, { type: "prompt", message: "/qna" }];
    const loaded = (run: PiRun) => run.events.filter((e) => e.method === "notify" && e.message === "Questions loaded. Edit and submit when ready.");
    const control = session(() => example("qna.ts"), steps);
    expect(control.code, control.stderr).toBe(0);
    expect(loaded(control)).toHaveLength(1);
    const run = session((w) => isolated(w, example("qna.ts"), { policy: "trusted" }), steps);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain("Theme not initialized");
    expect(run.stdout).not.toContain("no longer open");
    expect(run.events.filter((e) => e.type === "extension_error")).toEqual([]);
    expect(loaded(run)).toHaveLength(1);
  });

  it("shutdown-command.ts: /quit's ctx.shutdown() reaches pi isolated; pi's RPC mode reads it after the next command, as for an in-process extension that shuts down after an await (control)", () => {
    const steps = [{ type: "prompt", message: "/quit" }, { type: "get_state" }, { type: "get_state" }];
    const answered = (run: PiRun) => run.events.filter((e) => e.type === "response").map((e) => e.id);
    // In pi's process the command shuts down before pi reads its next command.
    const control = session(() => example("shutdown-command.ts"), steps);
    expect(control.code, control.stderr).toBe(0);
    expect(answered(control)).toEqual(["step-1"]);
    // The same command, shutting down after an await, in pi's process: pi reads the request after its next command.
    const later = session((w) => {
      const file = join(w.project, "quit-later.ts");
      writeFileSync(file, `export default function (pi: any) { pi.registerCommand("quit", { handler: async (_a: string, ctx: any) => { await new Promise((r) => setTimeout(r, 50)); ctx.shutdown(); } }); }\n`);
      return file;
    }, steps);
    expect(later.code, later.stderr).toBe(0);
    expect(answered(later)).toEqual(["step-1", "step-2"]);
    const run = session((w) => isolated(w, example("shutdown-command.ts"), { policy: "trusted" }), steps);
    expect(run.code, run.stderr).toBe(0);
    expect(answered(run)).toEqual(["step-1", "step-2"]);
  });
  it("an agent_end handler's sendMessage: in pi's process it finds the agent streaming and waits for the next run; isolated it finds the agent idle and is shown at once (docs/differences.md)", () => {
    // plan-mode.ts's shape: a message sent at agent_end before any await.
    const module = (w: PiWorld) => {
      const file = join(w.project, "after-run.ts");
      writeFileSync(file, `export default function (pi: any) { pi.on("agent_end", async () => { pi.sendMessage({ customType: "after-run", content: "after the run", display: true }, { triggerTurn: false }); }); }\n`);
      return file;
    };
    const steps = [{ type: "prompt", message: "first" }, { type: "prompt", message: "second" }];
    /** Where the custom message starts: before pi read the second prompt (shown at once), or after (queued). */
    const shown = (run: PiRun) => {
      const message = run.events.findIndex((e) => e.type === "message_start" && e.message?.customType === "after-run");
      const second = run.events.findIndex((e) => e.type === "response" && e.id === "step-2");
      expect(message, run.stdout).toBeGreaterThan(-1);
      return message < second ? "at once" : "next run";
    };
    const control = session(module, steps);
    expect(control.code, control.stderr).toBe(0);
    expect(shown(control)).toBe("next run");
    const run = session((w) => isolated(w, module(w), { policy: "trusted" }), steps);
    expect(run.code, run.stderr).toBe(0);
    expect(shown(run)).toBe("at once");
  });
});
