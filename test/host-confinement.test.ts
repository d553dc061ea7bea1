import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HookFailure } from "../src/index.js";
import { start, until } from "./helpers/host.js";
import { toolCall, turnStart } from "./helpers/events.js";
import { expectHeapExhaustionContained } from "./helpers/contained.js";

const outside = join(tmpdir(), `hookbox-outside-${process.pid}.txt`);
beforeAll(() => { writeFileSync(outside, "secret file"); process.env.OPENAI_API_KEY = "sk-host-only"; });
afterAll(() => { delete process.env.OPENAI_API_KEY; });
const probe = (p: string, path?: string) => ({ ...toolCall(), input: { probe: p, path } });

async function thrown(promise: Promise<unknown>): Promise<HookFailure> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(HookFailure);
  return err as HookFailure;
}

describe.each(["worker", "process"] as const)("confinement in %s mode", (isolation) => {
  it("reading a file outside the allowlist fails with ERR_ACCESS_DENIED, reported as handler_threw", async () => {
    const { runner } = await start(["hostile/probes-confinement.ts"], { load: { isolation } });
    const err = await thrown(runner.emitToolCall(probe("read", outside)));
    expect(err.code).toBe("handler_threw");
    expect(err.message).toContain("ERR_ACCESS_DENIED");
  });

  it("a path in policy.fsRead can be read", async () => {
    const { runner } = await start(["hostile/probes-confinement.ts"], { load: { isolation, policy: { fsRead: [outside] } } });
    expect(await runner.emitToolCall(probe("read", outside))).toEqual({ block: true, reason: "secret file" });
  });

  it("child_process and new Worker are denied", async () => {
    const { runner } = await start(["hostile/probes-confinement.ts"], { load: { isolation } });
    for (const p of ["spawn", "worker"]) {
      const err = await thrown(runner.emitToolCall(probe(p)));
      expect(err.code).toBe("handler_threw");
      expect(err.message).toContain("ERR_ACCESS_DENIED");
    }
  });

  it("a secret in the host's environment is not in the hook's", async () => {
    const { runner } = await start(["hostile/probes-confinement.ts"], { load: { isolation } });
    expect(JSON.parse((await runner.emitToolCall(probe("env")))!.reason!)).toEqual({ secret: null, path: true });
    const named = await start(["hostile/probes-confinement.ts"], { load: { isolation, policy: { env: ["OPENAI_API_KEY"] } } });
    expect(JSON.parse((await named.runner.emitToolCall(probe("env")))!.reason!).secret).toBe("sk-host-only");
    const trusted = await start(["hostile/probes-confinement.ts"], { load: { isolation, policy: "trusted" } });
    expect(JSON.parse((await trusted.runner.emitToolCall(probe("env")))!.reason!).secret).toBe("sk-host-only");
  });

  it("the env option replaces the policy's environment (PATH too), and execArgv its permission flags: the read denied above then succeeds", async () => {
    const { runner } = await start(["hostile/probes-confinement.ts"], { load: { isolation, env: { OPENAI_API_KEY: "sk-given" }, execArgv: [] } });
    expect(JSON.parse((await runner.emitToolCall(probe("env")))!.reason!)).toEqual({ secret: "sk-given", path: false });
    expect(await runner.emitToolCall(probe("read", outside))).toEqual({ block: true, reason: "secret file" });
  });

  it("each read the permission model denied reaches onDenied once, caught by the hook or not; without onDenied it is one warn line in onLog naming the grant", async () => {
    const records: unknown[] = [];
    const { runner } = await start(["hostile/probes-confinement.ts"], { load: { isolation, onDenied: (_h, r) => records.push(r) } });
    for (let i = 0; i < 2; i++) expect((await thrown(runner.emitToolCall(probe("read", outside)))).code).toBe("handler_threw");
    expect(await runner.emitToolCall(probe("read-caught", "/etc/hostname"))).toEqual({ block: true, reason: "caught" });
    await until(() => records.length >= 2, 5_000, "the denials");
    expect(records).toEqual([{ permission: "FileSystemRead", resource: outside }, { permission: "FileSystemRead", resource: "/etc/hostname" }]);
    const lines: Array<[string, string]> = [];
    const logged = await start(["hostile/probes-confinement.ts"], { load: { isolation, onLog: (_h, level, line) => lines.push([level, line]) } });
    expect(await logged.runner.emitToolCall(probe("read-caught", outside))).toEqual({ block: true, reason: "caught" });
    await until(() => lines.length > 0, 5_000, "the warn line");
    expect(lines).toEqual([["warn", `hookbox: FileSystemRead of ${outside} was denied by the module's policy (ERR_ACCESS_DENIED). The field that grants it: policy.fsRead (policy: { fsRead: [${JSON.stringify(outside)}] })`]]);
  });

  it("pi.exec outside the policy is refused with a clear error, and recorded", async () => {
    const records: unknown[] = [];
    const { runner } = await start(["hostile/probes-confinement.ts"], { load: { isolation, policy: { exec: { allow: ["git"] } }, onExec: (_p, r) => records.push(r) } });
    const err = await thrown(runner.emitToolCall(probe("exec", "/bin/sh")));
    expect(err.message).toContain('pi.exec("/bin/sh") is not in this hook\'s policy (allowed: git)');
    expect(records).toEqual([{ command: "/bin/sh", args: [], refused: expect.any(String) }]);
  });

  it("the trusted preset allows everything, like the original", async () => {
    const { runner } = await start(["hostile/probes-confinement.ts"], { load: { isolation, policy: "trusted" } });
    expect(await runner.emitToolCall(probe("read", outside))).toEqual({ block: true, reason: "secret file" });
    expect(await runner.emitToolCall(probe("exec", "true"))).toEqual({ block: true, reason: "exec code 0" });
  });
});

describe("process mode contains what worker threads cannot", () => {
  it("a hook that allocates past its limit is reported as out_of_memory and the host keeps running", async () => {
    await expectHeapExhaustionContained({ isolation: "process" });
  }, 60_000);

  it("a hook that writes a 200 MB frame is ended as protocol_violation before the host buffers it, and the host keeps running", async () => {
    const { runner, errors } = await start(["hostile/posts-giant-message.ts", "valid/redacts-api-key.ts"], { load: {
      isolation: "process", maxMessageBytes: 1_000_000, resourceLimits: { maxOldGenerationSizeMb: 1024 }, unresponsiveMs: 20_000,
    } });
    await runner.emit(turnStart());
    await until(() => errors.length > 0, 30_000, "the report");
    expect(errors.map((e) => e.code)).toEqual(["protocol_violation"]);
    expect(errors[0]!.error).toContain("over the bound");
    expect(await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text", text: "API_KEY=1" }], isError: false }))
      .toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED]" }] });
  }, 60_000);
});
