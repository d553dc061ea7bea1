/**
 * The differential of pi's own example extensions (pi 0.73.1's `examples/extensions/`): each example
 * runs in pi at its pinned version, in `--mode rpc`, twice, through the same scripted session
 * (test/support/pi-rpc-session.mjs): (A) in pi's process (`-e example`), (B) through
 * `isolate([example], { policy: "trusted" })` (`-e isolated.ts`). Each run is headless in a network
 * namespace with only loopback against the fake model (test/support/pi-netns-run.mjs), in a fresh
 * project folder and HOME. The two runs are compared after normalizing ids, times, durations and
 * paths: the RPC event stream, the model's requests, stderr, the final state (get_state,
 * get_messages), the exit and the files of the project and HOME.
 *
 * Outcomes:
 * - `identical`: nothing differs;
 * - `refused`: the isolated run reports a member or feature refused by name ("… is refused by
 *   hookbox/extension: …", the adapter's wording: src/extension/, worker/extension-members.mjs);
 * - `differs`: anything else differs (the first difference is given);
 * - `pi cannot load it`: run A never answered (pi exits when an extension it is given does not load,
 *   e.g. an npm package the example imports is not installed): nothing to compare.
 *
 * `scripts/examples-table.ts` writes docs/pi-examples.md's table from it; test/extension-examples.test.ts
 * checks the table against it. No outcome is hand-written.
 *
 * Its parts, in scripts/pi-examples/: the agents and their examples (`agents.ts`), what run B
 * isolates each with (`grants.ts`), the session and the two runs (`runs.ts`), a run normalized
 * (`observe.ts`), two runs compared (`compare.ts`), each example classified (`classify.ts`), and
 * the doc's table (`table.ts`).
 */
export { importPi, type Pi } from "../test/support/pi-run.js";
export { AGENTS, OUTCOMES, examplesDir, listExamples, type AgentName, type ExampleRow, type Outcome } from "./pi-examples/agents.js";
export { SANDBOX_NEEDS, isolateOptions, optionsSource, type Isolation, type SandboxGrant } from "./pi-examples/grants.js";
export { CALLS, INPUT_PROMPTS, PROMPT, buildHookbox, subscribesToInput, type RunOptions } from "./pi-examples/runs.js";
export { TIMER_DRIVEN, type Observed } from "./pi-examples/observe.js";
export { describeDifference, firstDifference, policyRefusalIn, refusalIn } from "./pi-examples/compare.js";
export { classifyAll, classifyExample } from "./pi-examples/classify.js";
export { TABLE_END, TABLE_START, markers, outcomesOf, renderTable, tableLabel, tableOf, withRows, withTable } from "./pi-examples/table.js";
