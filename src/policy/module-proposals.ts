/**
 * The grants a pi or oh-my-pi project module will need, proposed by reading it (`hookbox trust`):
 * the source of the module and of the files it imports, as text, never run. A static read that
 * finds the common shapes published extensions have: a handler that adds context the model reads
 * (`before_agent_start`, `context`: `effects:annotate`), a write into a folder of the project named
 * by a literal (`join(ctx.cwd, "logs", …)`, `"logs/tools.jsonl"`: `write:logs`), a program given to
 * `pi.exec` by a literal name (`exec:<program>`), a URL (`network:<host>:<port>`). What a module
 * computes is not found: what the sandbox refused it at run time (src/approval/needs.ts, recorded by
 * src/extension/notices.ts) is proposed beside.
 */
import { readFileSync, statSync } from "node:fs";
import { strictlyInside } from "../gates/inside.js";
import { importGraph } from "./import-graph.js";
import { moduleCanTake, parseGrant } from "./grants.js";

const MAX_SOURCE_BYTES = 256 * 1024;
/** node:fs calls that write (sync, callback and promise forms share the name). */
const WRITES = /\b(?:appendFile|writeFile|mkdir|createWriteStream|open|cp|copyFile|rename)(?:Sync)?\s*\(/;

/** The grants `module` of `project` would need, by reading it; each in its one spelling, sorted. */
export function proposeModuleGrants(project: string, module: string): string[] {
  const files = [module];
  try {
    for (const f of importGraph(module).files) if (strictlyInside(project, f.real)) files.push(f.real);
  } catch { /* an unreadable graph: the module alone */ }
  const text = files.map((f) => {
    try { return statSync(f).size <= MAX_SOURCE_BYTES ? readFileSync(f, "utf8") : ""; } catch { return ""; }
  }).join("\n");
  const out = new Set<string>();
  const add = (grant: string) => {
    try {
      const parsed = parseGrant(grant, project);
      if (moduleCanTake(parsed.grant)) out.add(parsed.text);
    } catch { /* not grantable (the project itself, .git, …): the refusal at run time says why */ }
  };
  // A handler whose result adds to what the model reads.
  if (/\.on\(\s*["'`](?:before_agent_start|context)["'`]/.test(text)) add("effects:annotate");
  if (WRITES.test(text)) {
    // join(<the project>, "logs", …) and the like: the first literal after the project's folder.
    for (const m of text.matchAll(/\b(?:join|resolve)\(\s*[\w.]*(?:cwd|Cwd|project\w*|root|ROOT|dir|Dir)\w*(?:\(\))?\s*,\s*["'`]([A-Za-z0-9_][\w.-]*)["'`]/g)) {
      if (!/\.[a-z0-9]+$/i.test(m[1]!)) add(`write:${m[1]}`);
    }
    // A relative path of a data file with a folder: "logs/tools.jsonl", `${ctx.cwd}/logs/x.log` (not a module's import).
    for (const m of text.matchAll(/["'`](?:\$\{[^}]*(?:cwd|project|root)[^}]*\}\/|\.\/)?([A-Za-z0-9_][\w-]*)\/[\w./-]*\.(?:log|jsonl|ndjson|json|txt|csv)["'`]/gi)) add(`write:${m[1]}`);
  }
  for (const m of text.matchAll(/\bexec\(\s*["'`]([A-Za-z0-9][A-Za-z0-9._+-]*)["'`]/g)) add(`exec:${m[1]}`);
  for (const m of text.matchAll(/\bhttps?:\/\/([A-Za-z0-9.-]+\.[A-Za-z]{2,})(?::(\d+))?/g)) add(`network:${m[1]}${m[2] ? `:${m[2]}` : m[0].startsWith("http:") ? ":80" : ""}`);
  return [...out].sort();
}
