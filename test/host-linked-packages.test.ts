/**
 * A symbolic link in a hook's package roots (its folder and the node_modules
 * above it) never widens what the hook may read. The import graph is granted file by file after
 * realpath; a link whose target leaves the roots fails the load (`load_failed`, naming the link,
 * its target and `policy.fsRead`), in every mode, unless the target is granted explicitly.
 * The links are built at test time in a temporary folder.
 */
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadHooks, type LoadOptions } from "../src/index.js";
import { tempDir } from "./helpers/files.js";
import { ROOT, host } from "./helpers/host.js";
import { ISOLATION } from "./support/isolation.js";

const SECRET = "hunter2-private-key";

/** A package folder with `packageName` exported and, when `secret`, a secret.key beside its package.json. */
function packageAt(dir: string, name: string, secret: boolean): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, type: "module", main: "index.js" }));
  writeFileSync(join(dir, "index.js"), `export const packageName = ${JSON.stringify(name)};\n`);
  if (secret) writeFileSync(join(dir, "secret.key"), SECRET);
  return dir;
}

/** `<tmp>/project/hooks/` with the fixture hooks, and `<tmp>/outside/linked-secrets/` (with secret.key) beside the project. */
function layout(): { hooks: string; outside: string } {
  const root = tempDir("hookbox-links-");
  const hooks = join(root, "project", "hooks");
  cpSync(join(ROOT, "fixtures/hostile/linked-packages"), hooks, { recursive: true });
  mkdirSync(join(hooks, "node_modules"), { recursive: true });
  return { hooks, outside: packageAt(join(root, "outside", "linked-secrets"), "linked-secrets", true) };
}

/** The layout with `node_modules/linked-secrets` linked to the folder outside the roots. */
function linkedOutside(): { hooks: string; outside: string } {
  const l = layout();
  symlinkSync(l.outside, join(l.hooks, "node_modules", "linked-secrets"));
  return l;
}

async function load(path: string, options: LoadOptions = {}) {
  const { hooks, errors } = await loadHooks([path], ROOT, { isolation: ISOLATION, ...options });
  return { runner: host(hooks, { init: false }).runner, errors };
}
const call = (input: Record<string, unknown> = {}) => ({ type: "tool_call" as const, toolName: "read", toolCallId: "c", input });

describe("symbolic links out of a hook's package roots", () => {
  it("a hook importing a package linked to a folder outside its roots fails to load, naming the link, its target and policy.fsRead", async () => {
    const { hooks, outside } = linkedOutside();
    const { runner, errors } = await load(join(hooks, "imports-a-package-linked-outside.ts"));
    expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
    expect(errors[0]!.error).toContain(`${join(hooks, "node_modules", "linked-secrets")} -> ${outside}`);
    expect(errors[0]!.error).toContain("policy.fsRead");
    expect(errors[0]!.error).not.toContain(SECRET);
    expect(runner.hasHandlers("tool_call")).toBe(false);
  });

  it("the same import loads when policy.fsRead grants the link's target explicitly", async () => {
    const { hooks, outside } = linkedOutside();
    const { runner, errors } = await load(join(hooks, "imports-a-package-linked-outside.ts"), { policy: { fsRead: [outside] } });
    expect(errors).toEqual([]);
    expect(await runner.emitToolCall(call())).toEqual({ block: true, reason: `linked-secrets: ${SECRET}` });
  });

  it("a link out of the roots that the hook does not import leaves the secret unreachable", async () => {
    const { hooks } = linkedOutside();
    const { runner, errors } = await load(join(hooks, "reads-through-links.ts"));
    if (ISOLATION === "sandbox") {
      // Inside the sandbox the link leads to nothing bound.
      expect(errors).toEqual([]);
      const error = await runner.emitToolCall(call({ path: "node_modules/linked-secrets/secret.key" })).catch((e: unknown) => e) as Error & { code: string; cause: { code: string } };
      expect(error.code).toBe("handler_threw");
      expect(error.cause.code).toBe("ENOENT");
      expect(error.message).not.toContain(SECRET);
    } else {
      // Node's permission model follows links under a granted folder: the roots are walked and the load refused.
      expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
      expect(errors[0]!.error).toContain(`${join(hooks, "node_modules", "linked-secrets")} -> `);
      expect(errors[0]!.error).toContain("policy.fsRead");
    }
  });

  it("a link to a single file out of the roots in the hook's own folder leaves it unreachable", async () => {
    const { hooks, outside } = layout();
    symlinkSync(join(outside, "secret.key"), join(hooks, "notes.txt"));
    const { runner, errors } = await load(join(hooks, "reads-through-links.ts"));
    if (ISOLATION === "sandbox") {
      const error = await runner.emitToolCall(call({ path: "notes.txt" })).catch((e: unknown) => e) as Error & { cause: { code: string } };
      expect(error.cause.code).toBe("ENOENT");
    } else {
      expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
      expect(errors[0]!.error).toContain(`${join(hooks, "notes.txt")} -> ${join(outside, "secret.key")}`);
    }
  });

  it("of two hooks loaded together whose folders share a node_modules root, the one with a link out of its own folder fails to load and the other loads", async () => {
    const { hooks, outside } = layout();
    const second = join(hooks, "..", "more-hooks");
    cpSync(hooks, second, { recursive: true });
    packageAt(join(hooks, "..", "node_modules", "shared"), "shared", false);
    symlinkSync(join(outside, "secret.key"), join(second, "notes.txt"));
    const { hooks: loaded, errors } = await loadHooks([join(hooks, "reads-through-links.ts"), join(second, "reads-through-links.ts")], ROOT, { isolation: ISOLATION });
    // Inside the sandbox the link leads to nothing bound (the test above): both load.
    if (ISOLATION === "sandbox") expect(errors).toEqual([]);
    else {
      expect(errors.map((e) => [e.path, e.code])).toEqual([[join(second, "reads-through-links.ts"), "load_failed"]]);
      expect(errors[0]!.error).toContain(`${join(second, "notes.txt")} -> ${join(outside, "secret.key")}`);
      expect(loaded.map((h) => h.path)).toEqual([join(hooks, "reads-through-links.ts")]);
    }
  });

  it("a package.json in the hook's folder linked to a secret fails the load in every mode (the scope lookup would read it)", async () => {
    const { hooks, outside } = layout();
    symlinkSync(join(outside, "secret.key"), join(hooks, "package.json"));
    const { errors } = await load(join(hooks, "reads-through-links.ts"));
    expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
    expect(errors[0]!.error).toContain(`${join(hooks, "package.json")} -> ${join(outside, "secret.key")}`);
  });

  it("a node_modules root linked to a folder that is not a node_modules folder fails the load in every mode", async () => {
    const { hooks, outside } = layout();
    const nodeModules = join(hooks, "..", "node_modules");
    symlinkSync(join(outside, ".."), nodeModules);
    const { errors } = await load(join(hooks, "reads-through-links.ts"));
    expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
    expect(errors[0]!.error).toContain(`${nodeModules} -> ${join(outside, "..")}`);
  });
});

describe("symbolic links inside a hook's package roots", () => {
  it("a package linked to a folder inside the hook's own folder imports and works", async () => {
    const { hooks } = layout();
    packageAt(join(hooks, "vendor", "linked-inside"), "linked-inside", false);
    symlinkSync("../vendor/linked-inside", join(hooks, "node_modules", "linked-inside"));
    const { runner, errors } = await load(join(hooks, "imports-a-package-linked-inside.ts"));
    expect(errors).toEqual([]);
    expect(await runner.emitToolCall(call())).toEqual({ block: true, reason: "imported linked-inside" });
  });
});
