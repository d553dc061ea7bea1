/**
 * The prototype-pollution escape, end to end: a project hook under the default policy (`untrusted`, the
 * bubblewrap sandbox) edits an event field to carry an own `__proto__` key holding `BASH_ENV`,
 * pointing at a script its repository ships; on main the edit was walked into the host's
 * `Object.prototype`, and the next sandbox start's host-side launcher (bash) ran that script on the
 * host. The NODE_OPTIONS variant does the same to a trusted hook's process. Each chain is cut at
 * two places, tested apart: the edit is refused at the wire (src/gates/safe-keys.ts, src/runner/edits.ts), and
 * even a polluted `Object.prototype` reaches no child's environment (worker/child-env.mjs).
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { discoverAndLoadHooks, execCommand, loadHooks, type LoadedHook } from "../src/index.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { fixture, host } from "./helpers/host.js";
import { projectAndHome } from "./support/folders.js";

const available = sandboxAvailability();
if (!available.ok) console.log(`escape-chain sandbox tests skipped: ${available.reason}`);

const loaded: LoadedHook[] = [];
const PLANTED = ["BASH_ENV", "NODE_OPTIONS"];
afterEach(async () => {
  // On a host without the fix the chain pollutes this test process: undo it before anything else runs.
  for (const key of PLANTED) delete (Object.prototype as Record<string, unknown>)[key];
  await Promise.all(loaded.splice(0).map((h) => h.sandbox?.dispose()));
});

/** A project whose repository ships the attacker's hook and its payloads; the payloads write markers on the host when run. */
function attackersProject() {
  const { cwd, home } = projectAndHome("hookbox-escape-");
  const hook = join(cwd, ".xcsh/hooks/pre/bash.ts");
  mkdirSync(dirname(hook), { recursive: true });
  copyFileSync(fixture("hostile/pollutes-prototype-through-edits.ts"), hook);
  const bashMarker = join(cwd, "ESCAPED-BASH_ENV");
  const nodeMarker = join(cwd, "ESCAPED-NODE_OPTIONS");
  const script = join(cwd, ".xcsh/payload.sh");
  writeFileSync(script, `echo "ran on the host as $(id -u)" > '${bashMarker}'\n`);
  const preload = join(cwd, ".xcsh/payload.cjs");
  writeFileSync(preload, `require("node:fs").writeFileSync(${JSON.stringify(nodeMarker)}, "ran in " + process.pid);\n`);
  const innocent = join(cwd, "hooks/innocent.ts");
  mkdirSync(dirname(innocent), { recursive: true });
  copyFileSync(fixture("valid/blocks-rm-rf.ts"), innocent);
  return { cwd, home, script, preload, bashMarker, nodeMarker, innocent };
}

const plantingCall = (plant: Record<string, string>) => ({ type: "tool_call" as const, toolName: "bash", toolCallId: "proto", input: { command: "ls", plant } });
const ownKeys = () => Reflect.ownKeys(Object.prototype).map(String).sort();

describe.skipIf(!available.ok)("the escape chain: edit -> prototype -> launcher environment", () => {
  it("a project hook under the default policy cannot plant BASH_ENV for the next sandbox's launcher: the edit is refused and no script runs on the host", async () => {
    const p = attackersProject();
    const before = ownKeys();
    const found = await discoverAndLoadHooks([], p.cwd, { home: p.home, approvals: false });
    loaded.push(...found.hooks);
    expect(found.errors).toEqual([]);
    expect(found.hooks.map((h) => h.sandbox?.options.isolation)).toEqual(["sandbox"]);
    const { runner, errors } = host(found.hooks, { cwd: p.cwd });

    const event = plantingCall({ BASH_ENV: p.script });
    // Refused, and the call fails closed (the hook meant to change what the tool runs).
    expect(await runner.emitToolCall(event)).toMatchObject({ block: true, reason: expect.stringContaining("failed (invalid_result)") });
    expect(errors.map((e) => e.code)).toEqual(["invalid_result"]);
    expect(errors[0]!.error).toContain('edited event.input in place during tool_call to a value that is not valid, which was not applied: __proto__: the key "__proto__" is refused: it names a prototype');
    expect(event.input).toEqual({ command: "ls", plant: { BASH_ENV: p.script } });
    expect(ownKeys()).toEqual(before);

    // The next sandbox starts: another hook loading, and the attacker's own hook started again (a reload).
    const next = await loadHooks([p.innocent], p.cwd, { policy: "untrusted" });
    loaded.push(...next.hooks);
    expect(next.errors).toEqual([]);
    expect(next.hooks[0]!.sandbox?.options.isolation).toBe("sandbox");
    expect(await runner.reload(found.hooks[0]!.path)).toBeUndefined();
    expect(existsSync(p.bashMarker)).toBe(false);
  });

  it("even with Object.prototype already polluted, the next sandbox's launcher and execCommand get no BASH_ENV", async () => {
    const p = attackersProject();
    (Object.prototype as Record<string, unknown>).BASH_ENV = p.script;
    let result;
    let codes: string[];
    let launched: boolean;
    try {
      const next = await loadHooks([p.innocent], p.cwd, { policy: "untrusted", loadUnresponsiveMs: 2_000 });
      loaded.push(...next.hooks);
      codes = next.errors.map((e) => e.code);
      launched = existsSync(p.bashMarker);
      result = await execCommand("/bin/bash", ["-c", "echo ${BASH_ENV:-none}"], p.cwd);
    } finally {
      delete (Object.prototype as Record<string, unknown>).BASH_ENV;
    }
    // A polluted host is broken anyway (its strict schemas see the planted key on every object, so
    // the hook's load answer is refused), but its sandbox was started: launcher, bwrap, node.
    expect(codes).not.toContain("load_failed");
    expect(launched, "the sandbox launcher ran BASH_ENV's script").toBe(false);
    expect(result.stdout.trim()).toBe("none");
    expect(existsSync(p.bashMarker)).toBe(false);
  });
});

describe("the NODE_OPTIONS variant: edit -> prototype -> a trusted hook's process", () => {
  it("a trusted hook in its own process cannot plant NODE_OPTIONS for the next hook process: the edit is refused and no preload runs", async () => {
    const p = attackersProject();
    const before = ownKeys();
    const trusted = { isolation: "process" as const, policy: "trusted" as const };
    const first = await loadHooks([join(p.cwd, ".xcsh/hooks/pre/bash.ts")], p.cwd, trusted);
    loaded.push(...first.hooks);
    expect(first.errors).toEqual([]);
    const { runner, errors } = host(first.hooks, { cwd: p.cwd });
    expect(await runner.emitToolCall(plantingCall({ NODE_OPTIONS: `--require ${p.preload}` }))).toMatchObject({ block: true, reason: expect.stringContaining("failed (invalid_result)") });
    expect(errors.map((e) => e.code)).toEqual(["invalid_result"]);
    expect(errors[0]!.error).toContain('__proto__: the key "__proto__" is refused: it names a prototype');
    expect(ownKeys()).toEqual(before);

    const next = await loadHooks([p.innocent], p.cwd, trusted);
    loaded.push(...next.hooks);
    expect(next.errors).toEqual([]);
    expect(existsSync(p.nodeMarker)).toBe(false);
  });

  it("even with Object.prototype already polluted, a trusted hook's process gets no NODE_OPTIONS", async () => {
    const p = attackersProject();
    (Object.prototype as Record<string, unknown>).NODE_OPTIONS = `--require ${p.preload}`;
    let codes: string[];
    try {
      const next = await loadHooks([p.innocent], p.cwd, { isolation: "process", policy: "trusted", loadUnresponsiveMs: 2_000 });
      loaded.push(...next.hooks);
      codes = next.errors.map((e) => e.code);
    } finally {
      delete (Object.prototype as Record<string, unknown>).NODE_OPTIONS;
    }
    // The process was started (a polluted host then refuses its answers: see above).
    expect(codes).not.toContain("load_failed");
    expect(existsSync(p.nodeMarker)).toBe(false);
  });
});
