/**
 * The agent's own packages a module's top file imports (named by the alias table of
 * src/discovery/agent-packages.ts) are evaluated at the module's first read of them, not at its
 * import (worker/agent-packages.mjs): the agent's process has them loaded already, and a worker
 * evaluating `@mariozechner/pi-coding-agent` at import was most of a first start. Each read gives
 * the very values Node's own import of the same file gives in that isolate. A fake package stands
 * for the agent's (fixtures/agent-package/pi-ai: its top level counts its evaluations), so what ran when
 * is a fact the module reports, not a timing. The same with pi's real packages, against pi's
 * process: test/e2e-pi-published.test.ts.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { prepareExtensionModules, settleModules } from "../src/runner/loader.js";
import type { LoadedHook } from "../src/runner/hook.js";
import type { IsolatedHook } from "../src/runner/isolated-hook.js";
import { ROOT } from "./helpers/host.js";
import { ISOLATION, POLICY } from "./support/isolation.js";

const SCOPE = join(ROOT, "fixtures", "agent-package");
const PACKAGE = join(SCOPE, "pi-ai", "index.js");
const MODULE = join(ROOT, "fixtures", "extensions", "reads-an-agent-package.ts");
const disposing: LoadedHook[] = [];
afterEach(async () => { await Promise.all(disposing.splice(0).map((h) => h.dispose?.())); });

/** The module loaded with `alias` as the agent's table. */
async function load(alias: Record<string, string>) {
  const modules = prepareExtensionModules([MODULE], ROOT, { isolation: ISOLATION, transformCacheDir: false, policy: POLICY ?? { fsRead: [SCOPE] } }, { alias, native: [] });
  const { hooks, errors } = await settleModules(modules);
  disposing.push(...hooks);
  return { hooks, errors };
}

/** What the module reported (its tool's description). */
async function report(alias: Record<string, string>) {
  const { hooks, errors } = await load(alias);
  expect(errors).toEqual([]);
  return JSON.parse((hooks[0] as IsolatedHook).manifest.tools![0]!.description) as Record<string, unknown>;
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
