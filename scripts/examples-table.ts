/**
 * `npm run examples-table`: the differential of pi's example extensions (scripts/pi-examples.ts),
 * each in pi's process against `isolate([example], { policy: "trusted" })`, in `--mode rpc`, and
 * rewrites docs/pi-examples.md's table from it. Needs root (each run is in its own network
 * namespace with only loopback: `unshare -n`).
 *
 *   npm run examples-table                                   rewrite the doc's table (worker isolation, isolate's default)
 *   npm run examples-table -- --isolation sandbox            the sandbox table (each example's policy)
 *   npm run examples-table -- --only hello.ts                rerun those examples' rows of the table, keep the others
 *   npx tsx scripts/examples-table.ts --only hello.ts --json print the rows as JSON
 *   npx tsx scripts/examples-table.ts --only hello.ts --dump /tmp/d   also write both runs, normalized, to /tmp/d
 *   npm run examples-table -- --agent oh-my-pi               oh-my-pi's examples, into docs/omp-examples.md
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { piUnavailable } from "../test/support/pi-run.js";
import { AGENTS, classifyAll, outcomesOf, renderTable, tableLabel, tableOf, withRows, withTable, type AgentName, type Isolation } from "./pi-examples.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ISOLATIONS = ["worker", "process", "sandbox"] as const;

const { values: args } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    only: { type: "string", multiple: true },
    isolation: { type: "string" },
    parallel: { type: "string", default: "2" },
    dump: { type: "string" },
    agent: { type: "string", default: "pi" },
  },
});
const agent = args.agent as AgentName;
if (!(agent in AGENTS)) throw new Error(`--agent must be one of ${Object.keys(AGENTS).join(", ")}`);
const DOC = join(ROOT, "docs", AGENTS[agent].doc);
const isolation = args.isolation as Isolation | undefined;
if (isolation !== undefined && !ISOLATIONS.includes(isolation)) throw new Error(`--isolation must be one of ${ISOLATIONS.join(", ")}`);
const unavailable = piUnavailable();
if (unavailable) throw new Error(`examples-table: ${unavailable}`);

const started = performance.now();
const rows = await classifyAll({
  agent, isolation, only: args.only, dump: args.dump, parallel: Number(args.parallel),
  onRow: (r) => process.stderr.write(`examples-table: ${r.file}: ${r.outcome} (${(r.ms / 1000).toFixed(1)} s)${r.detail ? `: ${r.detail}` : ""}\n`),
});
process.stderr.write(`examples-table: ${rows.length} examples in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
const plain = rows.map(({ file, outcome, detail }) => ({ file, outcome, detail }));
if (args.json) {
  console.log(JSON.stringify(plain));
} else {
  // The sandbox table has its own markers; worker isolation is isolate's default, the main table.
  const which = isolation === "worker" ? undefined : isolation;
  const doc = readFileSync(DOC, "utf8");
  const current = tableOf(doc, which);
  // With --only: those examples' rows are rerun, the others kept (a table generated before must exist).
  const table = args.only && current !== undefined && outcomesOf(current).length > 0
    ? withRows(current, plain, tableLabel(which, agent))
    : renderTable(plain, tableLabel(which, agent), which);
  writeFileSync(DOC, withTable(doc, table, which));
  console.log(`docs/${AGENTS[agent].doc}: ${rows.length} examples${args.only ? " rerun" : ""}`);
}
