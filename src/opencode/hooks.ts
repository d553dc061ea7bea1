/**
 * opencode 1.18.33's plugin hooks as rows: for each hook, the row of hookbox's event table it
 * carries (src/contract/events.ts; a hook no row fits gets one here, named by the hook), what a
 * failure does (`block`: the tool call does not run, as a throw blocks it in opencode; `report`:
 * opencode's own value stands and the fault is reported), the schema of the `output` a plugin hands
 * back, and the effect class of an edit of each of its fields (worker/effects.mjs: observe, restrict,
 * substitute). `offered: "trusted"` marks the hooks never offered to code under `untrusted` at all
 * (the provider's options with its credential, the environment of every command): a project's plugin
 * that returns one is told so and the hook is not registered. A hook not in this table is not registered either.
 */
import { z } from "zod";
import type { EVENTS } from "../contract/events.js";
import type { Effect } from "../contract/events.js";

export interface OpencodeHookRow {
  /** The row of src/contract/events.ts whose semantics it has, or its own (`opencode:<hook>`). */
  row: keyof typeof EVENTS | `opencode:${string}`;
  failure: "block" | "report";
  /** opencode awaits it (every hook but `event`, which the bus fires and forgets). */
  awaited: boolean;
  /** Who may have it at all. */
  offered: "untrusted" | "trusted";
  /** The output's fields a plugin may edit, with their class. */
  edits: Record<string, Effect>;
  /** What the plugin's edited output must be (unknown keys stripped: opencode reads only these). */
  output: z.ZodType<Record<string, unknown>>;
}

const record = z.record(z.string(), z.unknown());
const none = z.object({}).passthrough();

export const OPENCODE_HOOKS = {
  "tool.execute.before": { row: "tool_call", failure: "block", awaited: true, offered: "untrusted", edits: { args: "substitute" }, output: z.object({ args: record }) },
  "tool.execute.after": {
    row: "tool_result", failure: "report", awaited: true, offered: "untrusted",
    edits: { title: "substitute", output: "substitute", metadata: "substitute" },
    output: z.object({ title: z.string().optional(), output: z.string().optional(), metadata: z.unknown().optional() }),
  },
  event: { row: "opencode:event", failure: "report", awaited: false, offered: "untrusted", edits: {}, output: none },
  "chat.message": { row: "input", failure: "report", awaited: true, offered: "untrusted", edits: { message: "substitute", parts: "substitute" }, output: z.object({ message: record, parts: z.array(record) }) },
  "command.execute.before": { row: "input", failure: "report", awaited: true, offered: "untrusted", edits: { parts: "substitute" }, output: z.object({ parts: z.array(record) }) },
  // Offered to your plugins only: their input carries the provider's options (its API key among them).
  "chat.params": {
    row: "before_provider_request", failure: "report", awaited: true, offered: "trusted",
    edits: { temperature: "substitute", topP: "substitute", topK: "substitute", maxOutputTokens: "substitute", options: "substitute" },
    output: z.object({ temperature: z.number().optional(), topP: z.number().optional(), topK: z.number().optional(), maxOutputTokens: z.number().optional(), options: record }),
  },
  "chat.headers": { row: "before_provider_request", failure: "report", awaited: true, offered: "trusted", edits: { headers: "substitute" }, output: z.object({ headers: z.record(z.string(), z.string()) }) },
  "experimental.chat.system.transform": { row: "before_agent_start", failure: "report", awaited: true, offered: "untrusted", edits: { system: "substitute" }, output: z.object({ system: z.array(z.string()) }) },
  "experimental.chat.messages.transform": { row: "context", failure: "report", awaited: true, offered: "untrusted", edits: { messages: "substitute" }, output: z.object({ messages: z.array(record) }) },
  "experimental.session.compacting": { row: "session.compacting", failure: "report", awaited: true, offered: "untrusted", edits: { context: "substitute", prompt: "substitute" }, output: z.object({ context: z.array(z.string()), prompt: z.string().optional() }) },
  "experimental.compaction.autocontinue": { row: "opencode:experimental.compaction.autocontinue", failure: "report", awaited: true, offered: "untrusted", edits: { enabled: "restrict" }, output: z.object({ enabled: z.boolean() }) },
  "experimental.text.complete": { row: "message_end", failure: "report", awaited: true, offered: "untrusted", edits: { text: "substitute" }, output: z.object({ text: z.string() }) },
  "tool.definition": { row: "opencode:tool.definition", failure: "report", awaited: true, offered: "untrusted", edits: { description: "substitute", parameters: "substitute" }, output: z.object({ description: z.string(), parameters: z.unknown() }) },
  "experimental.provider.small_model": { row: "opencode:experimental.provider.small_model", failure: "report", awaited: true, offered: "untrusted", edits: { model: "substitute" }, output: z.object({ model: z.unknown().optional() }) },
  "shell.env": { row: "opencode:shell.env", failure: "report", awaited: true, offered: "trusted", edits: { env: "substitute" }, output: z.object({ env: z.record(z.string(), z.string()) }) },
} as const satisfies Record<string, OpencodeHookRow>;

export type OpencodeHook = keyof typeof OPENCODE_HOOKS;

/** Hooks opencode reads as values or functions with other shapes, which hookbox does not carry out of process: refused by name. */
export const NOT_CARRIED: Readonly<Record<string, string>> = {
  config: "it mutates opencode's whole config in place (a substitute of everything)",
  auth: "it receives the stored credential and returns the provider's options (a substitute)",
  provider: "it lists models with the stored credential (a substitute)",
  tool: "custom tools are not run through hookbox opencode yet",
  "permission.ask": "opencode 1.18.33 never calls it",
};

export const isOpencodeHook = (name: string): name is OpencodeHook => Object.hasOwn(OPENCODE_HOOKS, name);
