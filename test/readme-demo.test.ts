/**
 * README "Set-up": `npm start` is "a two-second demo: blocked rm -rf, redacted read, a crash and a hang
 * contained", and docs/cli.md shows what it prints. Run as a newcomer runs it (npm, tsx, real workers);
 * only the measured times differ from run to run.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./cli-run.js";

/** Times are measured, so each becomes `N ms`, and the stats table's padding, which follows their widths, one space. */
const normalise = (text: string) => text.split("\n").map((line) => line.replace(/ *\d+(\.\d+)? ms/g, " N ms").replace(/ +/g, " ").trimEnd());

describe("README: npm start", () => {
  it("runs the demo docs/cli.md shows, line for line but the times: a blocked rm -rf, a redacted read, a crash and a hang contained, in about two seconds", { timeout: 60_000 }, () => {
    const r = spawnSync("npm", ["start"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false" } });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const printed = r.stdout.slice(r.stdout.indexOf("hookbox demo:"));
    const docs = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");
    const at = docs.indexOf("```\n$ npm start\n") + "```\n$ npm start\n".length;
    const shown = docs.slice(at, docs.indexOf("```", at));
    expect(normalise(printed)).toEqual(normalise(shown));
    // What the README's one line promises, in the demo's own words (kept literally by the normalising above).
    for (const fact of ["BLOCKED before it ran: rm -rf blocked", "the agent sees: \"API_KEY=[REDACTED] DEBUG=1\"", "HookError crashed from", "HookError timeout from demo/hooks/hangs-on-compact.ts", "the host never crashed."]) {
      expect(printed).toContain(fact);
    }
    const [, total] = /^\[ *(\d+) ms\] runner disposed/m.exec(printed)!;
    expect(Number(total)).toBeLessThan(5_000); // about two seconds on a quiet machine; this one is shared
  });
});
