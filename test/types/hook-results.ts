// Type-level tests, checked by `tsc --noEmit` (part of `npm test`): every `@ts-expect-error` line
// must fail to compile, so a regression that lets a wrong result through fails the type check.
import type { HookAPI } from "../../src/hooks.js";

export default function (pi: HookAPI) {
  // Right shapes compile.
  pi.on("tool_call", () => ({ block: true, reason: "no" }));
  pi.on("tool_call", async (event) => (event.toolName === "bash" ? { block: true } : undefined));
  pi.on("tool_result", (event) => ({ content: event.content.map((c) => (c.type === "text" ? { ...c, text: "[redacted]" } : c)) }));
  pi.on("context", (event) => ({ messages: event.messages.filter((m) => m.role !== "custom") }));
  pi.on("session_before_switch", () => ({ cancel: true }));
  pi.on("turn_start", () => {});
  pi.on("turn_end", async () => undefined);
  // The catch-all: an agent's own events, outside the contract.
  pi.on("my_agent:custom_event", (event) => { void event.type; return 42; });
  pi.on("plan_mode_changed", () => undefined);

  // @ts-expect-error block must be a boolean
  pi.on("tool_call", () => ({ block: "yes" }));
  // @ts-expect-error misspelt result field
  pi.on("tool_call", () => ({ blok: true }));
  // @ts-expect-error async: misspelt result field
  pi.on("tool_call", async () => ({ blok: true }));
  // @ts-expect-error tool_result content is an array of content blocks
  pi.on("tool_result", () => ({ content: "redacted" }));
  // @ts-expect-error context messages must be an array
  pi.on("context", () => ({ messages: "nope" }));
  // @ts-expect-error cancel must be a boolean
  pi.on("session_before_switch", () => ({ cancel: 1 }));
  // @ts-expect-error a prefix of a contract name is a typo, not an event of its own
  pi.on("tool_cal", () => ({ block: true }));
  // @ts-expect-error a contract name with more after it is a typo too
  pi.on("tool_calls", () => undefined);
  // @ts-expect-error turn_start has no result
  pi.on("turn_start", () => ({ block: true }));
  // @ts-expect-error the event is typed per name
  pi.on("tool_call", (event) => { void event.content; });
}
