/**
 * `npm run examples-table`: loads each of pi's example extensions through `isolate` inside pi's own
 * loader and runner (scripts/pi-examples.ts) and rewrites the table of docs/pi-examples.md.
 *
 *   npm run examples-table                       rewrite the doc's table
 *   npx tsx scripts/examples-table.ts --json     print the rows, as JSON on the last line (the test reads it)
 *   npx tsx scripts/examples-table.ts --only hello.ts --json
 *
 * The examples run in a child of this script inside a network namespace with only loopback
 * (`unshare -n`, root needed), in a fresh folder with a fresh HOME: an example that calls a
 * service, runs `gh` or `git`, or writes where it runs, reaches nothing of this machine's.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { installPiDir } from "../test/support/pi-run.js";
import { classifyExample, examplesDir, importPi, listExamples, renderTable, tableLabel, withTable, type ExampleRow } from "./pi-examples.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DOC = join(ROOT, "docs", "pi-examples.md");
const ISOLATIONS = ["worker", "process", "sandbox"] as const;

const { values: args } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    only: { type: "string", multiple: true },
    isolation: { type: "string", default: "worker" },
    child: { type: "boolean", default: false },
    pi: { type: "string" },
  },
});
const isolation = args.isolation as (typeof ISOLATIONS)[number];
if (!ISOLATIONS.includes(isolation)) throw new Error(`--isolation must be one of ${ISOLATIONS.join(", ")}`);

/** In the namespace: classify every example, one at a time; print the rows as JSON. */
async function child(): Promise<void> {
  const install = args.pi!;
  const pi = await importPi(install);
  pi.initTheme("dark"); // as pi's main does before any extension runs
  const dir = examplesDir(install);
  const rows: ExampleRow[] = [];
  for (const file of listExamples(dir)) {
    if (args.only && !args.only.includes(file)) continue;
    process.stderr.write(`examples-table: ${file}\n`);
    rows.push(await classifyExample(pi, dir, file, process.cwd(), { isolation }));
  }
  // On a line of its own: an example may have written to stdout (notify.ts writes a terminal escape).
  process.stdout.write(`\n${JSON.stringify(rows)}\n`);
}

/** Run the child in a network namespace with only loopback, in a fresh folder with a fresh HOME. */
export function classifyInNamespace(): ExampleRow[] {
  if (process.getuid?.() !== 0) throw new Error("examples-table needs root to run the examples in a network namespace (unshare -n)");
  const scratch = mkdtempSync(join(tmpdir(), "hookbox-pi-examples-"));
  const cwd = join(scratch, "project");
  const home = join(scratch, "home");
  mkdirSync(cwd);
  mkdirSync(home);
  try {
    const argv = [process.execPath, "--import", import.meta.resolve("tsx"), fileURLToPath(import.meta.url), "--child", "--pi", installPiDir(), "--isolation", isolation, ...(args.only ?? []).flatMap((o) => ["--only", o])];
    const run = spawnSync("unshare", ["-n", ...argv], {
      cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, ".pi", "agent"), PI_OFFLINE: "1", NODE_OPTIONS: "" },
    });
    if (run.status !== 0) throw new Error(`the examples' run failed (${run.status ?? run.signal}): ${run.error?.message ?? ""}`);
    return JSON.parse(run.stdout.trim().split("\n").pop()!) as ExampleRow[];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (args.child) {
  await child();
  // An example's timer must not keep the run alive: everything it printed is out.
  process.exit(0);
} else {
  const rows = classifyInNamespace();
  if (args.json) {
    console.log(JSON.stringify(rows));
  } else {
    writeFileSync(DOC, withTable(readFileSync(DOC, "utf8"), renderTable(rows, tableLabel(isolation))));
    console.log(`docs/pi-examples.md: ${rows.length} examples`);
  }
}
