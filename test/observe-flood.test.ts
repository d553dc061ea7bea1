/**
 * A hook that fails on every call cannot flood the audit log (fixtures/hostile/floods-decisions.ts),
 * in every isolation mode: over the rate the records are dropped and counted, past the size the
 * files rotate. Real hooks, real files.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AuditLog } from "../src/observe/audit-log.js";
import { readAuditLog } from "../src/observe/read-log.js";
import type { DecisionRecord } from "../src/observe/record.js";
import { start } from "./helpers/host.js";
import { toolCall } from "./helpers/events.js";

const dirs: string[] = [];
const freshDir = () => { const d = mkdtempSync(join(tmpdir(), "hookbox-audit-")); dirs.push(d); return d; };
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

describe("a hook that floods decisions (fixtures/hostile/floods-decisions.ts)", () => {
  it("fails every call with invalid_result; the log keeps within its rate (the rest counted in dropped records) and its size (with content, rotated)", async () => {
    const [rated, sized] = [freshDir(), freshDir()];
    const host = await start(["hostile/floods-decisions.ts"]);
    const byRate = new AuditLog({ dir: rated, maxBytes: 1024 * 1024, files: 2, rate: 20, burst: 100 });
    const bySize = new AuditLog({ dir: sized, maxBytes: 16 * 1024, files: 2, burst: 10_000 });
    const seen: DecisionRecord[] = [];
    host.runner.onRecord((r) => { seen.push(r); byRate.append(r); });
    host.runner.onRecord((r) => bySize.append(r), { content: true });
    const began = performance.now();
    for (let i = 0; i < 400; i++) await host.runner.emitToolCall(toolCall("y".repeat(2_000), `f${i}`));
    const seconds = (performance.now() - began) / 1000;
    // One more once a token is back: the count of the records dropped before it is written first.
    await new Promise((r) => setTimeout(r, 100));
    await host.runner.emitToolCall(toolCall("ls", "after"));
    byRate.close();
    bySize.close();
    expect(seen).toHaveLength(401);
    expect(new Set(seen.map((r) => `${r.outcome}:${r.code}:${r.blocked}`))).toEqual(new Set(["failed:invalid_result:true"]));
    const { records, invalid } = readAuditLog(rated, 2);
    expect(invalid).toBe(0);
    const kept = records.filter((r) => r.outcome !== "dropped");
    const dropped = records.filter((r) => r.outcome === "dropped").reduce((n, r) => n + r.dropped!, 0);
    expect(kept.length).toBeLessThanOrEqual(100 + Math.ceil((seconds + 0.2) * 20));
    expect(kept.length + dropped).toBe(401);
    expect(kept.at(-1)!.tool?.callId).toBe("after");
    const total = readdirSync(sized).reduce((n, f) => n + statSync(join(sized, f)).size, 0);
    expect(total).toBeLessThanOrEqual(2 * 16 * 1024);
    for (const f of readdirSync(sized)) for (const l of readFileSync(join(sized, f), "utf8").split("\n").filter(Boolean)) expect(() => JSON.parse(l)).not.toThrow();
    expect(readAuditLog(sized, 2).records.at(-1)!.content?.input).toEqual(toolCall("ls", "after"));
  });
});
