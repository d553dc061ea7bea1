// Demo: a handler stuck in a synchronous loop. Its event loop is blocked, so it cannot even
// acknowledge the request: hookbox terminates the worker (unresponsive) and restarts it.
import type { HookAPI } from "hookbox/hooks";

export default function (pi: HookAPI) {
  pi.on("todo_reminder", () => {
    for (;;) {
      // spin
    }
  });
}
