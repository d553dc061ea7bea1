// Demo: a handler that never settles (an await on something that never comes). Its deadline cuts
// it off (timeout); the worker is still healthy and the runner goes on without its result.
import type { HookAPI } from "hookbox/hooks";

export default function (pi: HookAPI) {
  pi.on("session_before_compact", () => new Promise<{ cancel: boolean }>(() => {}));
}
