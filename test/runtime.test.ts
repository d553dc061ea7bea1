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
import { childRuntime, HOST_BUN, MIN_NODE_MAJOR } from "../src/policy/runtime.js";
import { FrameReader } from "../src/isolation/frames.js";
import { MAX_FRAME_DEPTH, measure } from "../worker/wire.mjs";
import { decodeFrameBody, encodeFrame } from "../worker/frames.mjs";
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

  it("takes Node MIN_NODE_MAJOR.0.0 (package.json's engines, test/docs-figures.test.ts) and refuses the last release before it, naming the minimum", async () => {
    const oldest = fakeRuntime({ node: `${MIN_NODE_MAJOR}.0.0`, bun: null, flags: ["--experimental-permission"] });
    expect(childRuntime(oldest)).toEqual({ path: oldest, node: `${MIN_NODE_MAJOR}.0.0`, permissionFlag: "--experimental-permission" });
    const before = fakeRuntime({ node: `${MIN_NODE_MAJOR - 1}.99.0`, bun: null, flags: ["--experimental-permission"] });
    expect(childRuntime(before)).toBe(`the runtime ${before} is Node ${MIN_NODE_MAJOR - 1}.99.0: hooks need Node ${MIN_NODE_MAJOR} or later`);
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

  it("refuses a function and a symbol, as structured clone does, and a cycle, which no message holds", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const inSet = { s: new Set([cycle]) };
    for (const value of [{ f: () => 1 }, { s: Symbol("x") }, cycle, inSet, { s: new Set([() => 1]) }]) expect(() => encodeFrame(value)).toThrow(TypeError);
  });

  it("keeps what structured clone keeps and the contract carries: Set, Map, Date, BigInt, undefined, holes, NaN, ±Infinity, -0, sharing", () => {
    const shared = { text: "same object twice" };
    const value = {
      fileOps: { read: new Set(["a.ts"]), written: new Set(), edited: new Set(["b.ts", "c.ts"]) }, customInstructions: undefined,
      map: new Map<unknown, unknown>([["k", { n: 1 }], [2, new Set([3])]]), date: new Date(5), invalid: new Date(Number.NaN), big: 2n ** 70n,
      numbers: [Number.NaN, -0, Infinity, -Infinity], middle: [1, undefined, 3], holes: [1, , 3], sparse: Object.assign([], { 1000: "x" }),
      a: shared, b: shared,
    };
    const frame = encodeFrame(value);
    expect(frame.subarray(4, 5).toString()).toBe("~");
    const [back] = reader().push(frame) as [typeof value];
    expect(back).toEqual(value);
    expect(back.fileOps.read).toBeInstanceOf(Set);
    expect(Object.hasOwn(back, "customInstructions")).toBe(true);
    expect(back.map.get(2)).toEqual(new Set([3]));
    expect(back.date.getTime()).toBe(5);
    expect(back.invalid.getTime()).toBeNaN();
    expect(back.big).toBe(2n ** 70n);
    expect(Object.is(back.numbers[1], -0)).toBe(true);
    expect(1 in back.middle).toBe(true);
    expect(1 in back.holes).toBe(false);
    expect(back.sparse).toHaveLength(1001);
    expect(back.a).toBe(back.b);
  });

  it("writes plain data as JSON, and another class's instance as its own keys (structured clone's copy of an ordinary object)", () => {
    expect(encodeFrame({ a: [1, "x", null, { b: true }] }).subarray(4).toString()).toBe('{"a":[1,"x",null,{"b":true}]}');
    class Point { constructor(public x: number, public y: number) {} get sum() { return this.x + this.y; } }
    const [back] = reader().push(encodeFrame({ p: new Point(1, 2), n: Object.assign(Object.create(null), { k: 1 }) })) as [{ p: object; n: object }];
    expect(back).toEqual({ p: { x: 1, y: 2 }, n: { k: 1 } });
    expect(Object.getPrototypeOf(back.p)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(back.n)).toBe(Object.prototype);
  });

  it("keeps an own __proto__ key (and keys starting with NUL) in a tagged frame as own keys, so the key gate sees them", () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"\\u0000x":1,"set":null}');
    value.set = new Set([JSON.parse('{"constructor":{"prototype":{"polluted":true}}}')]);
    const [back] = reader().push(encodeFrame(value)) as [Record<string, unknown>];
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.keys(back)).toEqual(["__proto__", "\u0000x", "set"]);
    expect(Object.keys([...(back.set as Set<object>)][0]!)).toEqual(["constructor"]);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
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

  /** A frame of devalue's node list `nodes`, as a hostile child writes it. */
  const tagged = (nodes: unknown) => {
    const body = Buffer.from(`~${typeof nodes === "string" ? nodes : JSON.stringify(nodes)}`);
    return Buffer.concat([Buffer.from([0, 0, 0, 0]).fill(0).map((_, i) => (body.length >>> (8 * (3 - i))) & 255), body]);
  };
  const chain = (levels: number, tag?: string) => Array.from({ length: levels }, (_, i) => (i === levels - 1 ? "bottom" : tag ? [tag, i + 1] : [i + 1]));

  it.each([
    ["a cycle", [{ self: 0 }], "the value contains a cycle"],
    ["a cycle through a Set", [["Set", 1], { back: 0 }], "the value contains a cycle"],
    ["a reference past the node list", [{ a: 1_000_000_000 }], "a reference outside the body"],
    ["a reference that is not an index", [{ a: 0.5 }], "a reference outside the body"],
    ["a reference to the sparse mark", [{ a: -7 }], "a reference outside the body"],
    ["a value nested past the bound", chain(MAX_FRAME_DEPTH + 2), `a value nested deeper than ${MAX_FRAME_DEPTH} levels`],
    ["a value nested past the bound through Sets", chain(MAX_FRAME_DEPTH + 2, "Set"), `a value nested deeper than ${MAX_FRAME_DEPTH} levels`],
    ["a value nested past the bound through Maps", chain(MAX_FRAME_DEPTH + 2, "Map"), `a value nested deeper than ${MAX_FRAME_DEPTH} levels`],
    ["a RegExp", [["RegExp", "(a+)+$"]], 'a value of type "RegExp", which the wire does not carry'],
    ["a boxed value", [["Object", 1], "x"], 'a value of type "Object", which the wire does not carry'],
    ["a null-prototype object", [["null", "a", 1], 2], 'a value of type "null", which the wire does not carry'],
    ["a URL", [["URL", "file:///etc/passwd"]], 'a value of type "URL", which the wire does not carry'],
    ["a typed array", [["Uint8Array", 1], ["ArrayBuffer", "AAAA"]], 'a value of type "Uint8Array", which the wire does not carry'],
    ["a type of nobody's", [["Evil", 0]], 'a value of type "Evil", which the wire does not carry'],
    ["a Date of 100 000 characters", [["Date", "9".repeat(100_000)]], "a Date out of shape"],
    ["a BigInt of 100 000 digits", [["BigInt", "9".repeat(100_000)]], "a BigInt out of shape"],
    ["a sparse array four billion long", [[-7, 2 ** 32 - 1, 0, 1], "x"], "a sparse array longer than a frame"],
    ["an own __proto__ key as devalue writes none", '[{"__proto__":1},"x"]', "__proto__"],
    ["a body that is no node list", { a: 1 }, "a tagged body that is not a list of nodes"],
  ])("ends the reader at a tagged frame holding %s", (_, nodes, message) => {
    const r = reader();
    expect(r.push(tagged(nodes))).toEqual([]);
    expect(r.violation).toContain("an undecodable frame");
    expect(r.violation).toContain(message);
  });

  it("decodes a value shared 2^60 ways in one visit per node, shared as structured clone shares it; the size gate stops its walk at the bound", () => {
    // Node i is [i+1, i+1]: each level doubles the paths, 60 levels make 2^60 of them.
    const nodes = [...Array.from({ length: 60 }, (_, i) => [i + 1, i + 1]), "leaf"];
    const t0 = performance.now();
    const [back] = reader().push(tagged(nodes)) as [unknown[]];
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(back[0]).toBe(back[1]);
    const { bytes } = measure(back, 1_000_000);
    expect(bytes).toBeGreaterThan(1_000_000);
  });
});
