/**
 * The fingerprint of a module as it would run: the content hash of every file it could load and
 * the policy it runs under. Stricter than pinning one file (direnv pins `.envrc` alone): the
 * module's static import graph (./policy/import-graph.ts, after `realpath`), the packages it names
 * (each package folder whole), every `package.json` a scope lookup reads (a missing one counts: one
 * appearing changes resolution), and the module's own folder whole (the sandbox binds it, so a
 * dynamic `import()` of a sibling can load it). Each file is recorded by path as named and as it
 * really is, so a swapped symbolic link changes the fingerprint even when the content does not.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { importGraph } from "../policy/import-graph.js";
import { resolvePolicy, type PolicyOption } from "../policy/policy.js";

/** Bounds on what one fingerprint reads: past them the module cannot be pinned (and is not loaded). */
export const MAX_PINNED_FILES = 20_000;
export const MAX_PINNED_BYTES = 256 * 1024 * 1024;

/** A module as it would run, pinned. */
export interface Fingerprint {
  /** The module's path as discovered (absolute). */
  module: string;
  /** Its real path. */
  real: string;
  /** The policy's name, or `"custom"`. */
  policyName: string;
  /** Every pinned path (`path` or `path -> real`) with its sha256, `absent`, or `link:<target>`. */
  files: Record<string, string>;
  /** sha256 of the files and the resolved policy together. */
  digest: string;
}

/** Thrown when a module cannot be pinned (too large, unreadable entry): it is not approved. */
export class FingerprintError extends Error {
  override name = "FingerprintError";
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** Fingerprint `module` (an absolute path) as it would run under `policy`. */
export function fingerprint(module: string, policy: PolicyOption): Fingerprint {
  let real: string;
  try {
    real = realpathSync(module);
  } catch (err) {
    throw new FingerprintError(`cannot read ${module}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const files: Record<string, string> = {};
  const budget = { files: 0, bytes: 0 };
  const pin = (lexical: string, realPath: string | undefined) => {
    const key = realPath === undefined || realPath === lexical ? lexical : `${lexical} -> ${realPath}`;
    if (Object.hasOwn(files, key)) return;
    files[key] = hashFile(realPath ?? lexical, budget);
  };
  pin(module, real);
  const graph = importGraph(real, true);
  for (const file of graph.files) pin(file.lexical, file.real);
  for (const manifest of graph.manifests) pin(manifest.lexical, manifest.real);
  for (const pkg of graph.packages) pinTree(pkg.real, files, budget);
  pinTree(dirname(real), files, budget);
  const resolved = resolvePolicy(policy);
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    module, real,
    policyName: typeof policy === "string" ? policy : "custom",
    files: sorted,
    digest: sha256(JSON.stringify({ module, real, files: sorted, policy: resolved })),
  };
}

/** The sha256 of a file, `absent` when it does not exist. */
function hashFile(path: string, budget: { files: number; bytes: number }): string {
  let data: Buffer;
  try {
    if (!statSync(path).isFile()) return "not-a-file";
    data = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "absent";
    throw new FingerprintError(`cannot read ${path}: ${code ?? String(err)}`);
  }
  count(budget, data.length, path);
  return sha256(data);
}

function count(budget: { files: number; bytes: number }, bytes: number, path: string): void {
  budget.files += 1;
  budget.bytes += bytes;
  if (budget.files > MAX_PINNED_FILES || budget.bytes > MAX_PINNED_BYTES) {
    throw new FingerprintError(`the files it could load (reached ${path}) exceed ${MAX_PINNED_FILES} files or ${MAX_PINNED_BYTES / 1024 / 1024} MiB, too many to pin; ` +
      "put the module in a folder of its own");
  }
}

/** Every file under `root` (a real folder): links recorded by target (not followed), files by content. */
function pinTree(root: string, files: Record<string, string>, budget: { files: number; bytes: number }): void {
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      throw new FingerprintError(`cannot read the folder ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (Object.hasOwn(files, path)) continue;
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isSymbolicLink()) {
        // Why by target: the link is what changes when it is swapped; what it leads to is pinned
        // where the graph reaches it.
        files[path] = `link:${readlinkSync(path)}`;
        count(budget, 0, path);
      } else if (entry.isFile()) {
        files[path] = hashFile(path, budget);
      } else {
        files[path] = "special";
      }
    }
  }
}
