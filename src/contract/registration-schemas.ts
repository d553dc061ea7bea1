/**
 * What an isolated pi extension registers besides handlers (tools, flags, shortcuts), as the
 * worker's manifest carries it (src/contract/protocol.ts): names gated so that no control, space or quote
 * reaches the agent's terminal or command line, texts and schemas bounded. The functions stay in
 * the worker (worker/api.mjs); the adapter mirrors these on the agent (src/extension/registrations.ts).
 */
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { LIMITS, NAME_PATTERNS } from "../../worker/wire.mjs";

const text = z.string().max(LIMITS.maxText);

/** A tool's name as models accept it (OpenAI's and Anthropic's function-name rule): no control, space or quote can reach a terminal. */
export const toolName = z.string().regex(NAME_PATTERNS.tool, "a tool name is 1 to 64 letters, digits, _ or -");
/** A flag's name (`--name` on the agent's command line) and a shortcut's key id (`ctrl+shift+u`). */
export const flagName = z.string().regex(NAME_PATTERNS.flag, "a flag name is 1 to 64 letters, digits, _ or -");
export const keyId = z.string().regex(NAME_PATTERNS.key, "a key id is printable ASCII without spaces, like ctrl+shift+u");
/** JSON data (what `JSON.parse` gives), under this many characters as JSON: a tool's parameter schema. */
const jsonObject = (maxChars: number) => z.custom<Record<string, unknown>>((v) => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  try {
    const json = JSON.stringify(v);
    return json.length <= maxChars && isDeepStrictEqual(JSON.parse(json), v);
  } catch { return false; }
}, { message: `expected a JSON schema: an object of plain JSON data, at most ${maxChars} characters as JSON` });

/** A tool an isolated pi extension registered (`pi.registerTool`), as data: its `execute` stays in the worker. */
export const toolSpecSchema = z.strictObject({
  name: toolName,
  label: text,
  description: text,
  parameters: jsonObject(LIMITS.maxText),
  promptSnippet: text.optional(),
  promptGuidelines: z.array(text).max(LIMITS.maxOptions).optional(),
  executionMode: z.enum(["sequential", "parallel"]).optional(),
  renderShell: z.enum(["default", "self"]).optional(),
  // The tool has these functions; they run in the worker (worker isolation's synchronous path).
  renderCall: z.literal(true).optional(),
  renderResult: z.literal(true).optional(),
  prepareArguments: z.literal(true).optional(),
});
export type ToolSpec = z.infer<typeof toolSpecSchema>;

/** A flag (`pi.registerFlag`) and a shortcut (`pi.registerShortcut`), as data. */
export const flagSpecSchema = z.strictObject({ name: flagName, description: text.optional(), type: z.enum(["boolean", "string"]), default: z.union([z.boolean(), text]).optional() });
export const shortcutSpecSchema = z.strictObject({ key: keyId, description: text.optional() });
