/**
 * Which version of an agent a program on PATH is: its npm package's `package.json`, found upward
 * from the program's real path. A launcher refuses any version its dialect row was not read from.
 */
import { readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import type { CommandDialect } from "./dialect.js";

/** The installed version of `packageName` that `program` belongs to, or undefined. */
export function agentVersion(program: string, packageName: string): string | undefined {
  let dir = dirname(realpathSync(program));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === packageName) return pkg.version;
    } catch { /* no package.json here: look further up */ }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** Why `program` cannot be run behind the wall (its version's hook contract is not known), or undefined. */
export function unknownVersion(d: Pick<CommandDialect<never>, "packageName" | "versions">, program: string): string | undefined {
  const version = agentVersion(program, d.packageName);
  if (version && d.versions.includes(version)) return undefined;
  return `${program} is ${d.packageName} ${version ?? "of an unknown version"}; hookbox knows the hook contract of ${d.versions.join(", ")} only, and would not know which of its hooks it keeps from running: install ${d.packageName}@${d.versions.at(-1)}`;
}
