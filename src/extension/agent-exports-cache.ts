/**
 * The agent's table with where each of its packages defines each name (src/discovery/agent-exports.ts),
 * as isolate() gives it to its modules. Mapping pi's packages lexes about 190 files (40-60 ms of
 * the host's CPU, cold), and every module's load spec waits for it: so it is computed once per
 * process, when the first load spec is sent (after the workers were spawned), and kept in the
 * host's transform cache folder (the same private folder as the start records), checked against
 * the size and modification time of every file it read. A changed file, a missing record or
 * `transformCacheDir: false`: mapped again.
 * A record is sealed (src/gates/sealed.ts: its body's hash, not a schema), as the runtime's code
 * cache is: parsing its 25 KB with zod cost the host's thread 1-4 ms at every start.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AgentExports, AgentModules } from "../contract/protocol.js";
import { agentExports } from "../discovery/agent-exports.js";
import { writeFileAtomicSync } from "../gates/atomic-write.js";
import { boundFolder, defaultTransformCacheDir, markUsed, privateDir } from "../gates/private-dir.js";
import { seal, unseal } from "../gates/sealed.js";

/** Bumped when the record's format or what the mapper answers changes: old records then miss. */
const FORMAT = "hookbox-agent-exports-2";
/** A record is 20-30 KB for pi's packages: a few agent versions. */
const EXPORT_RECORD_BYTES = 512 * 1024;
const RECORD = /^[0-9a-f]{64}\.json$/;

/** What a record's body holds: each file the map was made from (path, size, modification time), and the map. */
interface ExportRecord { inputs: Array<[string, number, number]>; exports: Record<string, AgentExports> }

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A file's identity as the record keeps it: path, size, modification time. */
function identity(file: string): [string, number, number] | undefined {
  try {
    const s = statSync(file);
    return [file, s.size, s.mtimeMs];
  } catch {
    return undefined;
  }
}

function fromRecord(file: string): Record<string, AgentExports> | undefined {
  try {
    const body = unseal(FORMAT, readFileSync(file));
    if (!body) return undefined;
    const record = JSON.parse(body.toString("utf8")) as ExportRecord;
    for (const [path, size, mtime] of record.inputs) {
      const now = identity(path);
      if (!now || now[1] !== size || now[2] !== mtime) return undefined;
    }
    markUsed(file);
    return record.exports;
  } catch {
    return undefined;
  }
}

function toRecord(file: string, exports: Record<string, AgentExports>, inputs: readonly string[]): void {
  const ids = inputs.map(identity);
  if (!ids.every((id) => id !== undefined)) return;
  try {
    const body = JSON.stringify({ inputs: ids, exports } satisfies ExportRecord);
    writeFileAtomicSync(file, seal(FORMAT, body));
  } catch { /* not recorded: mapped again next time */ }
  void boundFolder(join(file, ".."), RECORD, EXPORT_RECORD_BYTES);
}

/** The maps of `alias`, from the record in `cacheDir` when it still holds, else lexed (and recorded). */
export function cachedAgentExports(alias: Readonly<Record<string, string>>, cacheDir: string | false | undefined): Record<string, AgentExports> {
  const dir = cacheDir === false ? undefined : join(cacheDir ?? defaultTransformCacheDir(), "exports");
  const usable = dir !== undefined && privateDir(dir);
  const file = usable ? join(dir, `${sha256(JSON.stringify([FORMAT, Object.entries(alias).sort()]))}.json`) : undefined;
  const kept = file ? fromRecord(file) : undefined;
  if (kept) return kept;
  const { exports, inputs } = agentExports(alias);
  if (file) toRecord(file, exports, inputs);
  return exports;
}

const tables = new WeakMap<AgentModules, Map<string | false | undefined, AgentModules>>();

/**
 * `table` with `exports`, computed at its first read: when the first module's load spec is sent,
 * after the workers were spawned, so the work overlaps their boot. Enumerable, so the load spec
 * carries it to each worker like the rest of the table. One per table and cache folder.
 */
export function withAgentExports(table: AgentModules | undefined, cacheDir: string | false | undefined): AgentModules | undefined {
  if (!table) return undefined;
  let byDir = tables.get(table);
  if (!byDir) tables.set(table, (byDir = new Map()));
  let out = byDir.get(cacheDir);
  if (!out) {
    let exports: AgentModules["exports"];
    out = Object.defineProperty({ alias: table.alias, native: table.native }, "exports", { enumerable: true, get: () => (exports ??= cachedAgentExports(table.alias, cacheDir)) });
    byDir.set(cacheDir, out);
  }
  return out;
}
