/**
 * The agent's own packages a module's top file imports (named by the alias table of
 * src/discovery/agent-packages.ts) are evaluated at the module's first read of them, not at its
 * import (worker/agent-packages.mjs): the agent's process has them loaded already, and a worker
 * evaluating `@mariozechner/pi-coding-agent` at import was most of a first start. Each read gives
 * the very values Node's own import of the same file gives in that isolate. A fake package stands
 * for the agent's (fixtures/agent-package/pi-ai: its top level counts its evaluations), so what ran when
 * is a fact the module reports, not a timing. The same with pi's real packages, against pi's
 * process: test/e2e-pi-published.test.ts.
 *
 * While a module loads, a name read from a package whose entry is only re-exports evaluates the
 * file that defines it (src/discovery/agent-exports.ts maps them): fixtures/agent-package/by-name,
 * whose every file's top level leaves a mark.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { prepareExtensionModules, settleModules } from "../src/runner/loader.js";
import type { LoadedHook } from "../src/runner/hook.js";
import type { IsolatedHook } from "../src/runner/isolated-hook.js";
import type { AgentModules } from "../src/contract/protocol.js";
import { agentExports } from "../src/discovery/agent-exports.js";
import { ROOT } from "./helpers/host.js";
import { ISOLATION, POLICY } from "./support/isolation.js";

const SCOPE = join(ROOT, "fixtures", "agent-package");
const PACKAGE = join(SCOPE, "pi-ai", "index.js");
const MODULE = join(ROOT, "fixtures", "extensions", "reads-an-agent-package.ts");
const disposing: LoadedHook[] = [];
afterEach(async () => { await Promise.all(disposing.splice(0).map((h) => h.dispose?.())); });

/** The module loaded with `alias` as the agent's table (and `exports`, its maps, when given). */
async function load(alias: Record<string, string>, module = MODULE, exports?: AgentModules["exports"]) {
  const table: AgentModules = { alias, native: [], ...(exports ? { exports } : {}) };
  const modules = prepareExtensionModules([module], ROOT, { isolation: ISOLATION, transformCacheDir: false, policy: POLICY ?? { fsRead: [SCOPE] } }, table);
  const { hooks, errors } = await settleModules(modules);
  disposing.push(...hooks);
  return { hooks, errors };
}

/** What the module reported (its tool's description), and its hook. */
async function reported(alias: Record<string, string>, module = MODULE, exports?: AgentModules["exports"]) {
  const { hooks, errors } = await load(alias, module, exports);
  expect(errors).toEqual([]);
  const hook = hooks[0] as IsolatedHook;
  return { hook, seen: JSON.parse(hook.manifest.tools![0]!.description) as Record<string, unknown> };
}

/** What the module reported (its tool's description). */
async function report(alias: Record<string, string>) {
  return (await reported(alias)).seen;
}

const SEEN = {
  LIMIT: 2000, size: "1.5KB", calls: 1, box: true, hasDefault: true, fallback: { kind: "the default export" },
  keys: ["Box", "LIMIT", "calls", "default", "formatSize"],
};

describe(`the agent's packages a module imports (${ISOLATION})`, () => {
  it("are evaluated at the module's first read of them, and each read gives what Node's import of the same file gives", async () => {
    expect(await report({ "@mariozechner/pi-ai": PACKAGE })).toEqual({ atImport: 0, beforeRead: 0, afterRead: 1, seen: SEEN, same: true });
  });

  it("one the table names only by its folder is evaluated at the import, as jiti imports it, with the same values (the control)", async () => {
    expect(await report({ "@mariozechner/": `${SCOPE}/` })).toEqual({ atImport: 1, beforeRead: 1, afterRead: 1, seen: SEEN, same: true });
  });

  it("one whose top level throws fails the module's load when its factory reads it, with the package's error, as at the import (load_failed)", async () => {
    const broken = join(SCOPE, "broken");
    for (const alias of [{ "@mariozechner/pi-ai": join(broken, "pi-ai", "index.js") }, { "@mariozechner/": `${broken}/` }] as Array<Record<string, string>>) {
      const { errors } = await load(alias);
      expect(errors).toEqual([{ path: MODULE, code: "load_failed", error: expect.stringContaining("the agent's package failed at its top level") }]);
    }
  });
});

describe(`a name the agent's package exports, read while the module loads (${ISOLATION})`, () => {
  const BY_NAME = join(SCOPE, "by-name", "index.js");
  const OWN_CODE = join(SCOPE, "own-code", "index.js");
  const alias = { "@mariozechner/pi-ai": BY_NAME, "@mariozechner/pi-tui": OWN_CODE };
  /** Every file of by-name, in the order the whole package evaluates them. */
  const WHOLE = ["format", "box", "left", "right", "cycle", "pong", "ping"];

  it("is placed by the host only where certain: not a name two `export *` give, one whose file imports the entry back or sits in an import cycle, `default`, or any of an entry with code of its own", () => {
    const maps = agentExports(alias).exports;
    expect(Object.keys(maps)).toEqual([BY_NAME]);
    expect(maps[BY_NAME]).toEqual({
      files: ["format.js", "box.js", "left.js"].map((file) => join(SCOPE, "by-name", file)),
      names: { formatSize: [0, "formatSize"], MAX: [0, "LIMIT"], Box: [1, "Box"], onlyLeft: [2, "onlyLeft"] },
    });
  });

  it("is read from the file that defines it, through re-exports and `export *`; a package whose entry has code of its own is evaluated whole", async () => {
    const { hook, seen } = await reported(alias, join(ROOT, "fixtures", "extensions", "reads-an-agent-package-by-name.ts"), agentExports(alias).exports);
    expect(seen).toEqual({
      steps: {
        atImport: [],
        byName: ["format"],
        throughStars: ["format", "box", "left"],
        ownCode: ["format", "box", "left", "own format", "own entry"],
      },
      read: { size: "1.5KB", max: 2000, box: true, left: { side: "left" }, own: "3B" },
    });
    // After the load, a read evaluates the whole package first: handlers see every file's top level
    // run, and each value read by name is the whole package's own.
    const result = await hook.runTool("seen", "call-1", {}, undefined, () => {}, { hasUI: false, cwd: ROOT, model: undefined }) as { content: Array<{ text: string }> };
    expect(JSON.parse(result.content[0]!.text)).toEqual({
      inHandler: { max: 2000, marks: ["format", "box", "left", "own format", "own entry", "right", "cycle", "pong", "ping"] },
      same: true,
      keys: ["Box", "MAX", "formatSize", "onlyLeft", "pinged", "viaCycle"],
    });
  });

  it("without the map (the control) the first read evaluates the whole package", async () => {
    const { seen } = await reported(alias, join(ROOT, "fixtures", "extensions", "reads-an-agent-package-by-name.ts"));
    expect((seen.steps as Record<string, string[]>).byName).toEqual(WHOLE);
  });

  it("an ambiguous name (two `export *` give it) or one the map does not know evaluates the whole package, and reads what it gives", async () => {
    const { seen } = await reported(alias, join(ROOT, "fixtures", "extensions", "reads-an-ambiguous-agent-export.ts"), agentExports(alias).exports);
    expect(seen).toEqual({ read: { afterTwice: WHOLE, size: "2.0KB" }, marks: WHOLE, same: true });
  });
});
