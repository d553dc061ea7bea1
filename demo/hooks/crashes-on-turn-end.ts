// Demo: a hook that kills its own thread. Only its worker ends; hookbox restarts it (the factory
// runs again) and the hook works on the next event.
import type { HookAPI } from "hookbox/hooks";

export default function (pi: HookAPI) {
  pi.on("turn_end", (event) => {
    if (event.turnIndex === 0) process.exit(3);
  });
}
