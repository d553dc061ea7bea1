/**
 * The message roles oh-my-pi and the original (xcsh, oh-my-pi's ancestor) have beyond pi's, merged
 * into `CustomAgentMessages` as their own packages merge them (oh-my-pi 18's `session/messages.ts`),
 * and the original's `developer` LLM message. Only `hookbox/hooks/omp` imports this file: a program
 * that imports that entry has these roles in `AgentMessage` everywhere, one that imports only
 * `hookbox/hooks` has exactly pi's, so its messages go back to pi unchanged.
 */
import type { ImageContent, TextContent } from "./agent-types.js";

/** What the user's `$` Python cell ran, and its output. */
export interface PythonExecutionMessage {
  role: "pythonExecution"; code: string; output: string; exitCode: number | undefined; cancelled: boolean; truncated: boolean;
  timestamp: number; excludeFromContext?: boolean;
}
/** The files an `@path` mention in the prompt put in the conversation. */
export interface FileMentionMessage {
  role: "fileMention";
  files: { path: string; content: string; lineCount?: number; byteSize?: number; skippedReason?: "tooLarge" | "binary"; image?: ImageContent }[];
  timestamp: number;
}
/** A hook's message under the original's legacy role (oh-my-pi migrates it to `custom`, and still reads it). */
export interface LegacyHookMessage<T = unknown> {
  role: "hookMessage"; customType: string; content: string | (TextContent | ImageContent)[]; display: boolean; details?: T;
  attribution?: "user" | "agent"; timestamp: number;
}
/** A system-side message to the model (the original's and oh-my-pi's LLM package). */
export interface DeveloperMessage {
  role: "developer"; content: string | (TextContent | ImageContent)[]; attribution?: "user" | "agent"; synthetic?: boolean; timestamp: number;
}

declare module "./agent-types.js" {
  interface CustomAgentMessages {
    pythonExecution: PythonExecutionMessage;
    fileMention: FileMentionMessage;
    hookMessage: LegacyHookMessage;
    developer: DeveloperMessage;
  }
}
