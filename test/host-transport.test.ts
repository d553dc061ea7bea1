/**
 * What a hook can do to the channel and streams under hookbox's runtime, in every isolation mode:
 * the host survives, decodes nothing it cannot bound, names each fault by what it observed, and
 * keeps the hook's output off its own streams.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { DISPOSE_BOUND_MS } from "../src/isolation/endpoint.js";
import { start, until } from "./helpers/host.js";
import { turnStart } from "./helpers/events.js";
import { ISOLATION } from "./support/isolation.js";
import { TAGGED_FRAMES } from "../fixtures/hostile/writes-tagged-frames.js";

const toolResult = { type: "tool_result" as const, toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text" as const, text: "API_KEY=1" }], isError: false };
const REDACTED = { content: [{ type: "text", text: "API_KEY=[REDACTED]" }] };
const inProcess = ISOLATION !== "worker";
const TYPED = "typed by the user\n";

/** Run test/support/hostile-host.mts in a host process of its own; resolves with its stdout and stderr. */
function hostileHost(rel: string, scenario: "flood" | "stdin" | "typed"): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/support/hostile-host.mts", rel, ISOLATION, scenario], {
    // A pipe nobody writes to: a hook that reads the host's stdin blocks on it.
    stdio: ["pipe", "pipe", "pipe"],
  });
  // `typed`: what the user typed is there before the hook runs, then the stream ends.
  if (scenario === "typed") child.stdin.end(TYPED);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => { stdout += c; });
  child.stderr.on("data", (c) => { stderr += c; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill("SIGKILL"); reject(new Error(`no report; stderr: ${stderr}`)); }, 60_000);
    child.stdout.on("data", () => {
      if (!stdout.includes("\n")) return;
      clearTimeout(timer);
      // A host whose worker is stuck in readSync(0) cannot exit by itself (Node joins the thread).
      setTimeout(() => child.kill("SIGKILL"), 200);
      resolve({ stdout, stderr });
    });
  });
}

describe("the framed channel", () => {
  it("a result nested 5000 levels deep is refused as invalid_result and the host keeps answering", async () => {
    const { runner, errors } = await start(["hostile/returns-deeply-nested-result.ts", "valid/redacts-api-key.ts"], { load: { maxRestarts: 0 } });
    await runner.emit({ ...toolResult, content: [{ type: "text", text: "plain" }] });
    await until(() => errors.length > 0, 10_000, "the report");
    // The runtime refuses a result deeper than LIMITS.depth before sending it; a deep value forged
    // onto the channel past it is the frame reader's (writes-nested-frame.ts: protocol_violation).
    expect(errors[0]!.code).toBe("invalid_result");
    expect(await runner.emit(toolResult)).toEqual(REDACTED);
  });

  it.skipIf(!inProcess)("a malformed frame on the channel ends the hook as protocol_violation and the host keeps answering", async () => {
    const { runner, errors } = await start(["hostile/writes-malformed-frame.ts", "valid/redacts-api-key.ts"], { load: { maxRestarts: 0 } });
    await runner.emit(turnStart());
    await until(() => errors.length > 0, 10_000, "the report");
    expect(errors[0]!.code).toBe("protocol_violation");
    expect(errors[0]!.error).toContain("undecodable frame");
    expect(await runner.emit(toolResult)).toEqual(REDACTED);
  });

  it.skipIf(!inProcess).each(TAGGED_FRAMES.map((c, i) => [c.name, i, c.refusal] as const))("a tagged frame holding %s ends the hook as protocol_violation and the host keeps answering", async (_, turnIndex, refusal) => {
    const { runner, errors } = await start(["hostile/writes-tagged-frames.ts", "valid/redacts-api-key.ts"], { load: { maxRestarts: 0 } });
    await runner.emit({ type: "turn_start", turnIndex, timestamp: 0 });
    await until(() => errors.length > 0, 10_000, "the report");
    expect(errors.map((e) => e.code)).toEqual(["protocol_violation"]);
    expect(errors[0]!.error).toContain("undecodable frame");
    expect(errors[0]!.error).toContain(refusal);
    expect(await runner.emit(toolResult)).toEqual(REDACTED);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it.skipIf(!inProcess)("a frame nested deeper than the bound ends the hook as protocol_violation", async () => {
    const { runner, errors } = await start(["hostile/writes-nested-frame.ts", "valid/redacts-api-key.ts"], { load: { maxRestarts: 0 } });
    await runner.emit(turnStart());
    await until(() => errors.length > 0, 10_000, "the report");
    expect(errors[0]!.code).toBe("protocol_violation");
    expect(await runner.emit(toolResult)).toEqual(REDACTED);
  });
});

describe("fault codes come from what the host observed", () => {
  it("an error claiming ERR_WORKER_OUT_OF_MEMORY and V8's fatal text on stderr are reported as crashed, not out_of_memory", async () => {
    const logs: string[] = [];
    const { runner, errors } = await start(["hostile/forges-out-of-memory.ts"], { load: { maxRestarts: 0, onLog: (_h, level, line) => logs.push(`${level}: ${line}`) } });
    await runner.emit(turnStart());
    await until(() => errors.length > 0, 10_000, "the report");
    expect(errors[0]!.code).toBe("crashed");
    expect(errors[0]!.error).not.toContain("forged by the hook");
    // The fatal text went to onLog as the hook's stderr, nowhere else.
    await until(() => logs.some((l) => l.includes("Reached heap limit")), 5_000, "the stderr line");
    expect(logs).toContain("stderr: [hookbox:fatal] {\"message\":\"forged by the hook\",\"name\":\"Error\"}");
  });
});

describe("the hook's streams", () => {
  it("console output and a 512 MiB stdout flood reach onLog bounded, never the host's stdout, and the host's memory stays bounded", async () => {
    const { stdout, stderr } = await hostileHost("hostile/floods-stdout.ts", "flood");
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]!);
    expect(report.seen.first.slice(0, 2).sort()).toEqual(["stderr: complaint from the hook", "stdout: hello from the hook"]);
    expect(report.seen.cut).toBe(true);
    expect(report.seen.dropped).toBe(true);
    expect(report.seen.bytes).toBeLessThan(32 * 2 ** 20);
    expect(report.maxRssMb).toBeLessThan(400);
    expect(stderr).not.toContain("xxxx");
  }, 90_000);

  it("a stdout flood written without waiting (256 MiB, then 200 000 lines) lags the host's event loop under 1 s (1.7 s in worker mode before it was bounded)", async () => {
    const { stdout } = await hostileHost("hostile/floods-stdout-without-waiting.ts", "flood");
    const report = JSON.parse(stdout.trim());
    expect(report.errors).toEqual([]);
    expect(report.maxLagMs).toBeLessThan(1_000);
    expect(report.maxRssMb).toBeLessThan(400);
  }, 90_000);

  it("a hook blocked reading fd 0 (a pipe nobody writes to in a worker, /dev/null in a child) does not hold dispose past its bound", async () => {
    const { stdout } = await hostileHost("hostile/reads-stdin.ts", "stdin");
    const report = JSON.parse(stdout.trim());
    expect(report.disposeMs).toBeLessThan(DISPOSE_BOUND_MS + 1_000);
    // A child process has /dev/null as stdin: it reads end-of-file at once. A worker shares the
    // host's fd 0 and stays blocked (documented: worker mode cannot prevent it).
    if (inProcess) expect(report.messages).toEqual(["read 0 bytes"]);
    else expect(report.messages).toEqual([]);
  }, 90_000);

  it(`a hook reading fd 0 ${inProcess ? "reads /dev/null (end of file) and the host keeps the user's input" : "takes the user's input from the host (worker mode can: it shares fd 0)"}`, async () => {
    const report = JSON.parse((await hostileHost("hostile/reads-stdin.ts", "typed")).stdout.trim());
    // The control is the other project's run: the same input, read by the hook or left to the host.
    if (inProcess) {
      expect(report.messages).toEqual(["read 0 bytes"]);
      expect(report.hostRead).toBe(TYPED);
    } else {
      expect(report.messages).toEqual([`read ${TYPED.length} bytes: ${TYPED}`]);
      expect(report.hostRead).toBe("");
    }
  }, 30_000);

  // Why Bun differs: a Bun worker's process.stdin is the host's stream (Bun's workers run `trusted` only: docs/confinement.md).
  const bunWorker = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined" && !inProcess;
  it(`a hook reading process.stdin, the stream, ${bunWorker ? "on a Bun host's worker takes the user's input (the stream is the host's)" : "gets it ended and empty (a worker is given no stdin stream) and the host keeps the user's input"}`, async () => {
    const report = JSON.parse((await hostileHost("hostile/reads-process-stdin.ts", "typed")).stdout.trim());
    expect(report.messages).toEqual([`process.stdin ended: ${JSON.stringify(bunWorker ? TYPED : "")}`]);
    expect(report.hostRead).toBe(bunWorker ? "" : TYPED);
  }, 30_000);
});
