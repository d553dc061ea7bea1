/**
 * Removing what a hook planted in a granted folder (src/policy/planted.ts) with no power outside
 * that folder: `rm -rf` in a bubblewrap namespace where the host's root is read-only and only the
 * folder is writable. Why: a hook running beside the removal (another of the project's hooks,
 * another run of the same one) could swap a link in above a path being removed; through it, `rm`
 * meets a read-only file system, and removePlanted's next round finds the entry where it went.
 */
import { execFileSync } from "node:child_process";
import { findOnPath } from "../../policy/runtime.js";
import type { Remover } from "../../policy/planted.js";
import { launcherEnv } from "../../../worker/child-env.mjs";

/** `paths` (absolute, inside `folder`) removed by `rm -rf` that can write `folder` only; one that cannot be removed stays (the caller walks again). */
export const removeInside: Remover = (folder, paths) => {
  const bwrap = findOnPath("bwrap");
  const rm = findOnPath("rm");
  if (!bwrap || !rm) throw new Error(`hookbox cannot remove ${paths.join(", ")}: bwrap or rm is not on the PATH`);
  try {
    execFileSync(bwrap, ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--bind", folder, folder, "--", rm, "-rf", "--", ...paths], { stdio: "ignore", timeout: 30_000, env: launcherEnv() });
  } catch { /* what could not be removed is found by the next walk */ }
};
