/**
 * The conformance matrix of test/helpers/matrix.ts over real workers: every case loads its
 * fixture files into their own workers, emits the event through the runner method the contract
 * names, and checks the result and which handlers ran (each recorded with pi.sendMessage). Cases
 * with the same hooks share one runner (disposed after the file); its records are cleared per case.
 * All of it runs twice: over a full host and over a seed-shaped one (`eachHostShape`): the original accepts both.
 */
import { describe, expect, it } from "vitest";
import { emitAny, sample } from "./helpers/events.js";
import { eachHostShape, startShared } from "./helpers/host.js";
import { MATRIX } from "./helpers/matrix.js";

eachHostShape(() => {
  describe("the conformance matrix over real workers", () => {
    for (const [type, cases] of MATRIX) {
      describe(type, () => {
        for (const c of cases) {
          it(c.rule, async () => {
            const host = await startShared(c.hooks);
            const result = await emitAny(host.runner, sample(type));
            expect(result).toEqual(c.result);
            expect(host.calls()).toEqual(c.calls);
            if (c.received) expect(host.received().map((e) => (e as Record<string, unknown>)[c.field ?? "messages"])).toEqual(c.received);
            expect(host.errors).toEqual([]);
          });
        }
      });
    }
  });
});
