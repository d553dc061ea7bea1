// Warns before the agent starts when the repository has uncommitted changes (runs `git`).
//   hookbox emit examples/hooks/git-dirty-guard.ts --event agent_start --allow-exec git
import type { HookAPI } from "hookbox/hooks";

export default function (pi: HookAPI) {
  pi.on("agent_start", async (_event, ctx) => {
    const { stdout, code } = await pi.exec("git", ["status", "--porcelain"], { cwd: ctx.cwd });
    if (code !== 0) return;
    const changed = stdout.split("\n").filter(Boolean).length;
    ctx.ui.setStatus("git", changed ? `${changed} uncommitted` : "clean");
    if (changed) ctx.ui.notify(`${changed} file(s) have uncommitted changes`, "warning");
  });
}
