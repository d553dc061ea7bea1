/**
 * The runtimes on a Node host: the `runtime` option that runs process- and sandbox-mode hooks
 * (asked once for its version and permission flag, refused by name when it is not Node 20+), the
 * frame codec both Node and Bun read, and walks up a path that always end. With Bun as the host:
 * test/bun/ (vitest.bun.config.ts).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadHooks } from "../src/index.js";
import { ancestors, dependencyDir } from "../src/policy/paths.js";
import { childRuntime, HOST_BUN } from "../src/policy/runtime.js";
import { FrameReader } from "../src/isolation/frames.js";
import { decodeFrameBody, encodeFrame, MAX_FRAME_DEPTH } from "../worker/wire.mjs";
import { toolCall } from "./helpers/events.js";
import { tempDir } from "./helpers/files.js";
import { fixture, host, ROOT } from "./helpers/host.js";

const PROBES = fixture("hostile/probes-confinement.ts");

/** A shell script that answers the runtime probe as `answer` says and runs nothing else. */
function fakeRuntime(answer: object): string {
  const path = join(tempDir("hookbox-runtime-"), "node");
  writeFileSync(path, `#!/bin/sh\nprintf '%s' '${JSON.stringify(answer)}'\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("walks up a path", () => {
  it("end at the root of an absolute path and at '.' of a relative one (Bun's built-in 'undici' resolves to a bare name)", () => {
    expect([...ancestors("/a/b")]).toEqual(["/a/b", "/a", "/"]);
    expect([...ancestors("undici")]).toEqual(["undici", "."]);
    expect([...ancestors(".")]).toEqual(["."]);
  });

  it("find a dependency's folder by its package.json, and nothing for a name that is not installed", () => {
    expect(dependencyDir("undici")).toBe(join(ROOT, "node_modules/undici"));
    expect(dependencyDir("jiti")).toBe(join(ROOT, "node_modules/jiti"));
    expect(dependencyDir("no-such-package-hookbox")).toBeUndefined();
  });
});

describe("the runtime option", () => {
  it("defaults to this Node on a Node host, with its own permission flag", () => {
    expect(HOST_BUN).toBeUndefined();
    const runtime = childRuntime(undefined);
    expect(runtime).toEqual({ path: process.execPath, node: process.versions.node, permissionFlag: expect.stringMatching(/^--(experimental-)?permission$/) });
  });

  it("takes a name on PATH; a process-mode hook runs on it, confined", async () => {
    const { hooks, errors } = await loadHooks([PROBES], ROOT, { isolation: "process", runtime: "node" });
    expect(errors).toEqual([]);
    const { runner } = host(hooks);
    const err = await runner.emitToolCall({ ...toolCall(), input: { probe: "read", path: "/etc/passwd" } }).then(() => undefined, (e: Error) => e);
    expect(err?.message).toContain("ERR_ACCESS_DENIED");
  });

  it("asks the runtime itself for its version and permission flag (never this host's process.versions)", () => {
    const modern = fakeRuntime({ node: "22.14.0", bun: null, flags: ["--permission", "--experimental-permission"] });
    expect(childRuntime(modern)).toEqual({ path: modern, node: "22.14.0", permissionFlag: "--permission" });
    const older = fakeRuntime({ node: "20.11.0", bun: null, flags: ["--experimental-permission"] });
    expect(childRuntime(older)).toEqual({ path: older, node: "20.11.0", permissionFlag: "--experimental-permission" });
  });

  it("refuses by name a runtime that is Bun, too old, without a permission model, missing, or that does not answer", async () => {
    const cases: Array<[string, string]> = [
      [fakeRuntime({ node: "24.3.0", bun: "1.3.14", flags: [] }), "is Bun 1.3.14"],
      [fakeRuntime({ node: "18.20.0", bun: null, flags: ["--experimental-permission"] }), "is Node 18.20.0: hooks need Node 20 or later"],
      [fakeRuntime({ node: "20.0.0", bun: null, flags: [] }), "has no permission model"],
      [fakeRuntime({ nothing: true }), "did not answer as Node does"],
      ["/nonexistent/node", "was not found or is not executable"],
    ];
    for (const [runtime, said] of cases) {
      const { hooks, errors } = await loadHooks([PROBES], ROOT, { isolation: "process", runtime });
      expect(hooks).toEqual([]);
      expect(errors).toEqual([{ path: PROBES, code: "load_failed", error: expect.stringContaining(said) }]);
    }
  });

  it.runIf(process.platform === "linux" && process.arch === "x64")("refuses the real Bun binary as the runtime (installed by scripts/install-bun.sh, a no-op once there)", () => {
    const bun = execFileSync(join(ROOT, "scripts", "install-bun.sh"), { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop()!;
    expect(childRuntime(bun)).toContain("is Bun 1.3.14");
  }, 180_000);
});

describe("the frame codec (process and sandbox modes)", () => {
  const reader = () => new FrameReader({ maxFrameBytes: 1 << 20, maxDepth: MAX_FRAME_DEPTH });

  it("carries JSON data as UTF-8 JSON after a 4-byte length, which Node and Bun both read", () => {
    const frame = encodeFrame({ t: "res", id: 1, ok: true, v: { text: "é✓", n: [1, null] } });
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    expect(JSON.parse(frame.subarray(4).toString("utf8"))).toEqual({ t: "res", id: 1, ok: true, v: { text: "é✓", n: [1, null] } });
    expect(reader().push(frame)).toEqual([{ t: "res", id: 1, ok: true, v: { text: "é✓", n: [1, null] } }]);
  });

  it("refuses a function, a symbol, a BigInt and a cycle, as structured clone does", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const value of [{ f: () => 1 }, { s: Symbol("x") }, { b: 1n }, cycle]) expect(() => encodeFrame(value)).toThrow(TypeError);
  });

  it("decodes an own __proto__ key as an own key, never as the prototype", () => {
    const value = decodeFrameBody(Buffer.from('{"__proto__":{"polluted":true}}')) as object;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("ends the reader at bytes that are not JSON, a value nested past the bound, or a length over it", () => {
    const bad = reader();
    expect(bad.push(Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from("{x:")]))).toEqual([]);
    expect(bad.violation).toContain("an undecodable frame");
    const deep = reader();
    deep.push(encodeFrame(JSON.parse(`${"[".repeat(MAX_FRAME_DEPTH + 1)}${"]".repeat(MAX_FRAME_DEPTH + 1)}`)));
    expect(deep.violation).toBe(`a value nested deeper than ${MAX_FRAME_DEPTH} levels`);
    const long = reader();
    long.push(Buffer.from([0x7f, 0, 0, 0]));
    expect(long.violation).toContain("is over the bound");
  });
});
