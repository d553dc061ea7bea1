// Demo: a handler that throws. hookbox reports it as a HookError (handler_threw) and goes on.
import type { HookAPI } from "hookbox/hooks";

export default function (pi: HookAPI) {
  pi.on("agent_start", () => {
    throw new Error("could not reach the metrics server");
  });
}
