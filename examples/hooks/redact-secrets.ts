// Replaces API keys and tokens in what tools return before the model sees them.
//   hookbox replay examples/hooks/redact-secrets.ts --events examples/session.jsonl
import type { HookAPI } from "hookbox/hooks";

const SECRET = /\b(API_KEY|TOKEN|SECRET|PASSWORD)=\S+/g;

export default function (pi: HookAPI) {
  pi.on("tool_result", (event) => {
    let changed = false;
    const content = event.content.map((part) => {
      if (part.type !== "text" || !SECRET.test(part.text)) return part;
      changed = true;
      return { ...part, text: part.text.replace(SECRET, "$1=[REDACTED]") };
    });
    return changed ? { content } : undefined;
  });
}
