/**
 * A fresh host for test/sandbox-bounds.test.ts: prepares one module in sandbox mode as isolate()
 * does (prepareExtensionModules), reads its bounds before it starts, marks the loads file, starts
 * it, reads them again, and prints both. Run with test/support/records-loads.mjs, which writes
 * every module this process loads to HOOKBOX_LOADS_FILE.
 * Usage: bounds-before-start.mts <hook file>
 */
import { appendFileSync } from "node:fs";
import { prepareExtensionModules } from "../../src/runner/loader.js";

const [module] = prepareExtensionModules([process.argv[2]!], process.cwd(), { isolation: "sandbox" });
const before = module!.hook!.sandbox.bounds;
appendFileSync(process.env.HOOKBOX_LOADS_FILE!, "--started--\n");
const failure = await module!.begin();
const after = module!.hook!.sandbox.bounds;
await module!.hook!.dispose?.();
process.stdout.write(JSON.stringify({ before, after, failure: failure?.code }));
