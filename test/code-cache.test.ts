/**
 * The worker runtime's V8 code cache (src/isolation/code-cache.ts), from hookbox built as it ships
 * (`builtHookbox`), each host a fresh node: the host makes the cache once, from its own module in a
 * thread of its own, keeps it in its private folder, and every later hook thread compiles the
 * runtime with it (the thread says V8 accepted it). A cut, changed or garbage file is never fed to
 * V8; one from another V8 is refused by V8; each load then goes on and the file is made again. A
 * hook cannot get bytes taken as the cache; one that lies that V8 rejected its cache costs its host
 * two makes at most; `transformCacheDir: false` keeps none. The control:
 * the source tree has no bundle, so no cache.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir, writeHook } from "./helpers/files.js";
import { ROOT, fixture } from "./helpers/host.js";
import { builtHookbox } from "./support/pi-run.js";
import { FORGED } from "../fixtures/hostile/forges-a-code-cache.js";

const GUARD = `export default function (pi) {
  pi.on("tool_call", (event) => (event.input.command === "rm -rf /" ? { block: true, reason: "guarded" } : undefined));
}
`;
const TYPED = `export default function (pi: { on(event: string, handler: () => undefined): void }): void {
  pi.on("session_start", (): undefined => undefined);
}
`;

/** One load of `hooks` in a fresh host's `dir`, then (`settle`) a wait until the host's cache file is there, or a pause. */
interface Step { dir: string | false; hooks: string[]; settle?: boolean; pauseMs?: number }
interface Seen { verdicts: Array<string | null>; errors: Array<{ code: string; error: string }>; blocked: unknown }

const MAIN = `import { readdirSync } from "node:fs";
import { join } from "node:path";
const [entry, config] = [process.argv[2], JSON.parse(process.argv[3])];
const { HookRunner, createModelRegistry, createSessionManager, loadHooks } = await import(entry);
const files = (dir) => { try { return readdirSync(join(dir, "code")).filter((n) => n.endsWith(".bin")); } catch { return []; } };
const out = [];
for (const step of config) {
  const { hooks, errors } = await loadHooks(step.hooks, process.cwd(), { transformCacheDir: step.dir });
  const runner = new HookRunner(hooks, process.cwd(), createSessionManager(), createModelRegistry());
  const blocked = await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "rm -rf /" } });
  out.push({ verdicts: hooks.map((h) => h.sandbox.codeCache ?? null), errors: errors.map((e) => ({ code: e.code, error: e.error })), blocked: blocked ?? null });
  await runner.dispose();
  for (let i = 0; step.settle && i < 200 && files(step.dir).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, step.pauseMs ?? 0));
}
console.log(JSON.stringify(out));
process.exit(0);
`;

let built: string;
/** The hooks' folder and the host's: a hook may not read its host's cache folder. */
let work: string;
let caches: string;

/** Run `steps` in one fresh host loaded from `entry`. */
function host(steps: Step[], entry = join(built, "dist", "host", "index.js"), env: NodeJS.ProcessEnv = process.env): Seen[] {
  const main = join(work, "main.mjs");
  writeFileSync(main, MAIN);
  const args = entry.endsWith(".ts") ? [join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), main] : [main];
  const out = execFileSync(process.execPath, [...args, entry, JSON.stringify(steps)], { cwd: work, encoding: "utf8", timeout: 60_000, env });
  return JSON.parse(out.trim().split("\n").pop()!) as Seen[];
}

/** The cache files of a transform cache folder, with their bytes. */
function cacheFiles(dir: string): Array<{ name: string; bytes: Buffer; mtimeMs: number }> {
  let names: string[];
  try {
    names = readdirSync(join(dir, "code"));
  } catch {
    return [];
  }
  return names.map((name) => ({ name, bytes: readFileSync(join(dir, "code", name)), mtimeMs: statSync(join(dir, "code", name)).mtimeMs }));
}

/** A cache file whose header is sound for `payload` (the format of src/isolation/code-cache.ts). */
function soundFile(payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`hookbox-code-cache-1\n${createHash("sha256").update(payload).digest("hex")}\n`), payload]);
}
const payloadOf = (file: Buffer) => file.subarray(file.indexOf(10, file.indexOf(10) + 1) + 1);

let guard: string;
let typed: string;
let made: { dir: string; name: string; bytes: Buffer; mtimeMs: number };

describe("the worker runtime's code cache", { timeout: 180_000 }, () => {
  // The build (tsc and the bundles) is shared with the other tests of the built package.
  beforeAll(() => {
    built = builtHookbox("built-runtime-test");
    work = tempDir("hookbox-code-cache-");
    caches = tempDir("hookbox-code-cache-host-");
    guard = writeHook(work, "guard.mjs", GUARD);
    typed = writeHook(work, "typed.ts", TYPED);
  }, 180_000);

  it("the host makes the cache once its loads settled, and every later hook thread compiles the runtime with it", () => {
    const dir = join(caches, "cache-made");
    const [first, second] = host([{ dir, hooks: [guard, typed], settle: true }, { dir, hooks: [guard, typed] }]);
    expect(first).toEqual({ verdicts: [null, null], errors: [], blocked: { block: true, reason: "guarded" } });
    // The hook's ES module is imported and its TypeScript evaluated by a runtime compiled from the cache.
    expect(second).toEqual({ verdicts: ["accepted", "accepted"], errors: [], blocked: { block: true, reason: "guarded" } });
    const files = cacheFiles(dir);
    expect(files).toHaveLength(1);
    expect(files[0]!.name).toMatch(/^[0-9a-f]{64}\.bin$/);
    expect(statSync(join(dir, "code")).mode & 0o077).toBe(0);
    made = { dir, ...files[0]! };
  });

  it("a later host takes the file as it is: made once, not again", () => {
    const [again] = host([{ dir: made.dir, hooks: [guard, typed], settle: true }]);
    expect(again!.verdicts).toEqual(["accepted", "accepted"]);
    const [file] = cacheFiles(made.dir);
    expect(file!.bytes.equals(made.bytes)).toBe(true);
    expect(file!.mtimeMs).toBe(made.mtimeMs);
  });

  it("a cut, changed, garbage or foreign file never breaks a load: it is dropped (V8 refuses the foreign one) and made again", () => {
    const payload = payloadOf(made.bytes);
    const changed = Buffer.from(made.bytes);
    changed[changed.length - 100] ^= 0xff;
    // Another V8's cache: the version hash (V8's header, bytes 4-7) differs; our header is sound for it, so only V8 can refuse it.
    const foreign = Buffer.from(payload);
    foreign.writeUInt32LE(foreign.readUInt32LE(4) ^ 0x5a5a5a5a, 4);
    const cases: Record<string, Buffer> = {
      cut: made.bytes.subarray(0, Math.floor(made.bytes.length / 2)),
      changed,
      garbage: Buffer.from("not a code cache at all\n".repeat(100)),
      foreign: soundFile(foreign),
    };
    const dirs = Object.fromEntries(Object.entries(cases).map(([name, bytes]) => {
      const dir = join(caches, `cache-${name}`);
      mkdirSync(join(dir, "code"), { recursive: true, mode: 0o700 });
      writeFileSync(join(dir, "code", made.name), bytes);
      return [name, dir];
    }));
    const seen = host(Object.values(dirs).flatMap((dir) => [{ dir, hooks: [guard, typed], settle: true }, { dir, hooks: [guard, typed] }]));
    Object.keys(cases).forEach((name, i) => {
      const [broken, remade] = [seen[2 * i]!, seen[2 * i + 1]!];
      // Ours refuses a file whose bytes are not what its header says before V8 sees it; V8 refuses another V8's.
      expect(broken, name).toEqual({ verdicts: name === "foreign" ? ["rejected", "rejected"] : [null, null], errors: [], blocked: { block: true, reason: "guarded" } });
      expect(remade, name).toEqual({ verdicts: ["accepted", "accepted"], errors: [], blocked: { block: true, reason: "guarded" } });
      const [file] = cacheFiles(dirs[name]!);
      expect(file!.bytes.equals(cases[name]!), name).toBe(false);
    });
  });

  it("a hook's load reply that carries cache bytes is a protocol_violation, and its bytes are never the cache", () => {
    const dir = join(caches, "cache-hostile");
    const hostile = fixture("hostile/forges-a-code-cache.ts");
    const violation = { code: "protocol_violation", error: expect.stringMatching(/bad load reply.*made/) };
    // Worker mode only: the cache is a thread's; a child process's runtime never gets one.
    const [forged] = host([{ dir, hooks: [hostile], settle: true }]);
    expect(forged!.errors).toEqual([violation]);
    const [made] = cacheFiles(dir);
    expect(made!.bytes.includes(Buffer.from(FORGED))).toBe(false);
    expect(made!.bytes.length).toBeGreaterThan(10_000);
    // Given the cache, its "rejected" rides in a refused reply: the host's file stays as it was.
    const [after] = host([{ dir, hooks: [hostile, guard], pauseMs: 500 }]);
    expect(after).toEqual({ verdicts: ["accepted"], errors: [violation], blocked: { block: true, reason: "guarded" } });
    const [kept] = cacheFiles(dir);
    expect(kept!.bytes.equals(made!.bytes)).toBe(true);
    expect(kept!.mtimeMs).toBe(made!.mtimeMs);
  });

  it("a hook that says every cache it is given was rejected costs its host two makes, then that host gives none", () => {
    const dir = join(caches, "cache-liar");
    mkdirSync(join(dir, "code"), { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, "code", made.name), made.bytes);
    const liar = fixture("hostile/says-its-code-cache-was-rejected.ts");
    const seen = host([
      { dir, hooks: [liar], settle: true },
      { dir, hooks: [liar], settle: true },
      { dir, hooks: [liar], pauseMs: 1_000 },
      { dir, hooks: [guard] },
    ]);
    expect(seen.map((s) => s.errors)).toEqual([[], [], [], []]);
    expect(seen.map((s) => s.verdicts)).toEqual([["rejected"], ["rejected"], ["rejected"], [null]]);
    expect(seen[3]!.blocked).toEqual({ block: true, reason: "guarded" });
    expect(cacheFiles(dir)).toEqual([]);
  });

  it("transformCacheDir false: no cache is made or given, and no file is written", () => {
    const tmp = tempDir("hookbox-code-cache-tmp-");
    // Each given the time the others took to make one.
    const seen = host([{ dir: false, hooks: [guard, typed], pauseMs: 1_000 }, { dir: false, hooks: [guard, typed], pauseMs: 1_000 }], undefined, { ...process.env, TMPDIR: tmp });
    expect(seen.map((s) => s.verdicts)).toEqual([[null, null], [null, null]]);
    expect(readdirSync(tmp, { recursive: true })).toEqual([]);
  });

  it("control: from the source tree (no bundle) the same host makes no cache", () => {
    const dir = join(caches, "cache-source");
    const seen = host([{ dir, hooks: [guard, typed], pauseMs: 1_000 }, { dir, hooks: [guard, typed] }], join(ROOT, "src", "index.ts"));
    expect(seen.map((s) => s.verdicts)).toEqual([[null, null], [null, null]]);
    expect(cacheFiles(dir)).toEqual([]);
  });
});
