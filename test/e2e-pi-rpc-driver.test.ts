/**
 * The RPC session driver (test/support/pi-rpc-session.mjs) settles a step on the end of what the
 * step started, not on a quiet time: pi 0.73.1 answers a prompt before its run starts, and writes
 * agent_start only after every extension's agent_start handler returned. An extension whose handler
 * takes 1.5 s leaves pi silent for 1.5 s between the prompt's answer and agent_start; the driver asks
 * pi (`get_state`, `get_messages`) and sends the next step only after agent_end. The control is the driver without
 * that question (`askState: false`), which settles on 300 ms of quiet: its next step reaches pi
 * while the run is under way.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { installPi, piUnavailable, piWorld, runPi, type PiRun } from "./support/pi-agent.js";

const unavailable = piUnavailable();
if (unavailable) console.log(`test/e2e-pi-rpc-driver.test.ts skipped: ${unavailable}`);
const HANDLER_MS = 1_500;

/** pi in RPC mode with the slow agent_start handler: a prompt, then get_state. */
function session(cli: string, askState: boolean): PiRun & { transcript: Array<Record<string, any>>; timings: Array<[string, number]> } {
  const world = piWorld();
  const extension = join(world.project, "slow-agent-start.ts");
  writeFileSync(extension, `export default function (pi: any) {\n  pi.on("agent_start", () => new Promise((resolve) => setTimeout(resolve, ${HANDLER_MS})));\n}\n`);
  return runPi(cli, world, { command: "echo hi", extensions: [extension], rpc: { steps: [{ type: "prompt", message: "hi" }, { type: "get_state" }], askState } }) as never;
}
/** Where in the transcript each thing happened: `{ sent: get_state }`, agent_start and agent_end. */
const where = (run: { transcript: Array<Record<string, any>> }) => ({
  next: run.transcript.findIndex((r) => r.sent?.type === "get_state"),
  start: run.transcript.findIndex((r) => r.type === "agent_start"),
  end: run.transcript.findIndex((r) => r.type === "agent_end"),
  state: run.transcript.find((r) => r.type === "response" && r.command === "get_state")?.data,
});

describe.skipIf(unavailable !== undefined)("the RPC session driver", { timeout: 120_000 }, () => {
  let cli: string;
  beforeAll(() => { cli = installPi(); }, 300_000);

  it(`sends the next step only after the run a prompt started ended, though pi is silent for ${HANDLER_MS} ms between its answer and agent_start; the control, settled on quiet time, sends it mid-run`, () => {
    const asked = session(cli, true);
    expect(asked.code, asked.stderr).toBe(0);
    const seen = where(asked);
    expect(seen.start).toBeGreaterThan(-1);
    expect(seen.end).toBeGreaterThan(seen.start);
    expect(seen.next).toBeGreaterThan(seen.end);
    expect(seen.state).toMatchObject({ isStreaming: false });
    expect(asked.transcript.filter((r) => "timeout" in r)).toEqual([]);
    // The driver's own questions are not in the transcript: one get_state response, the step's.
    expect(asked.transcript.filter((r) => r.type === "response" && r.command === "get_state")).toHaveLength(1);
    expect(asked.timings[0]![1]).toBeGreaterThan(HANDLER_MS);

    const control = session(cli, false);
    expect(control.code, control.stderr).toBe(0);
    const early = where(control);
    expect(early.next).toBeGreaterThan(-1);
    // The run's agent_end was not written when the next step was sent (nor, its input closed, ever).
    expect(early.next).toBeLessThan(early.end === -1 ? Infinity : early.end);
  });
});
