/**
 * docs/confinement.md's threat table says what worker and process modes cannot stop, not only what
 * they stop: a cell that says **can** is a promise too. These run the sandbox's attack fixture
 * (fixtures/hostile/attacks-its-host.ts, test/sandbox-attacks.test.ts) confined, in the two modes
 * without a sandbox, and show each weakness as the table states it, beside what the mode does hold.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { start } from "./helpers/host.js";

const CANARY = "HOOKBOX_THREAT_CANARY";
const probe = (name: string, arg?: string) => ({ type: "tool_call" as const, toolName: "bash", toolCallId: name, input: { probe: name, arg } });

async function ask(isolation: "worker" | "process", name: string, arg?: string): Promise<any> {
  const { runner, errors } = await start(["hostile/attacks-its-host.ts"], { load: { isolation } });
  expect(errors).toEqual([]);
  const result = await runner.emitToolCall(probe(name, arg));
  return JSON.parse(result!.reason!);
}

beforeAll(() => { process.env[CANARY] = "host-only-value"; });
afterAll(() => { delete process.env[CANARY]; });

describe("reads the host's environment via process.report", () => {
  it("worker mode can: the worker's report shows the host's environment", async () => {
    expect(await ask("worker", "report-var", CANARY)).toBe("host-only-value");
  });

  it("process mode cannot: the child's report shows only the environment it was given", async () => {
    expect(await ask("process", "report-var", CANARY)).toBeNull();
  });
});

describe("kills or stops a process of the host's user", () => {
  for (const isolation of ["worker", "process"] as const) {
    it(`${isolation} mode can: a confined hook's SIGSTOP and SIGKILL reach a process of the same uid`, async () => {
      const victim = spawn("sleep", ["30"], { stdio: "ignore" });
      const ended = new Promise<NodeJS.Signals | null>((resolve) => victim.once("exit", (_code, signal) => resolve(signal)));
      expect(await ask(isolation, "signal", String(victim.pid))).toEqual({ ok: true });
      expect(await ended).toBe("SIGKILL");
    });
  }
});
