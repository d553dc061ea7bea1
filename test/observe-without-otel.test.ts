/**
 * `@opentelemetry/api` is an optional peer dependency: a copy of hookbox whose node_modules does not
 * have it loads, runs hook calls and gives records, with nothing said; a provider registered through
 * another copy of the API then gives no span and no warning; a call nobody hears builds no record
 * (test/observe-unheard.test.ts: with the API installed). The control is the same script over
 * this repository, where the API resolves: the same provider gets the span.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/host.js";

const copy = mkdtempSync(join(tmpdir(), "hookbox-no-otel-"));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** The script over hookbox at `root` (the SDK from this repository): what it saw, and its stderr. */
function run(root: string): { seen: unknown; stderr: string } {
  const child = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "test/support/observe-without-otel.mts"), root, ROOT], {
    cwd: root, encoding: "utf8", timeout: 30_000, env: { ...process.env, NODE_OPTIONS: "" },
  });
  expect(child.status, child.stderr).toBe(0);
  return { seen: JSON.parse(child.stdout.trim().split("\n").at(-1)!), stderr: child.stderr };
}

describe("without @opentelemetry/api", () => {
  it("hookbox loads, builds no record for a call nobody hears, records every call heard and writes nothing to stderr; a provider registered through another copy of the API gets no span", () => {
    for (const part of ["src", "worker", "package.json", "tsconfig.json"]) cpSync(join(ROOT, part), join(copy, part), { recursive: true });
    mkdirSync(join(copy, "node_modules"));
    for (const name of readdirSync(join(ROOT, "node_modules"))) {
      if (name !== "@opentelemetry" && name !== ".bin") symlinkSync(join(ROOT, "node_modules", name), join(copy, "node_modules", name));
    }
    const { seen, stderr } = run(copy);
    expect(seen).toEqual({ errors: [], unheard: 0, built: 2, records: 2, outcomes: ["blocked", "blocked"], loadedBefore: 0, spans: 0 });
    expect(stderr).toBe("");
  });

  it("the control: over this repository, where the API resolves, the same provider gets the span (and nothing loaded it before)", () => {
    const { seen, stderr } = run(ROOT);
    expect(seen).toEqual({ errors: [], unheard: 0, built: 2, records: 2, outcomes: ["blocked", "blocked"], loadedBefore: 0, spans: 1 });
    expect(stderr).toBe("");
  });
});
