/**
 * HookToolWrapper: `tool_call` before the tool runs (a block or a failing hook stops it),
 * `tool_result` after (content / details overrides applied; `isError` never), and on a tool error
 * a `tool_result` with `isError: true`, then the original error rethrown.
 */
import { HookFailure } from "../contract/errors.js";
import type { HookRunner } from "./runner.js";
import type { AgentTool, AgentToolResult, ToolResultEventResult } from "../contract/types.js";

/** Define a live getter on `wrapper` for every property of `tool` and its prototypes (methods bound). */
function applyToolProxy(tool: object, wrapper: object): void {
  const seen = new Set<PropertyKey>();
  for (let proto: object | null = tool; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const key of Reflect.ownKeys(proto)) {
      if (key === "constructor" || seen.has(key) || key in wrapper) continue;
      seen.add(key);
      Object.defineProperty(wrapper, key, {
        enumerable: true,
        configurable: true,
        get: () => {
          const value = (tool as Record<PropertyKey, unknown>)[key];
          return typeof value === "function" ? value.bind(tool) : value;
        },
      });
    }
  }
}

export class HookToolWrapper<TParams = any, TDetails = any> {
  declare name: string;
  declare label: string;
  declare description: string;
  declare parameters: unknown;
  readonly #tool: AgentTool<TParams, TDetails>;
  readonly #runner: HookRunner;

  constructor(tool: AgentTool<TParams, TDetails>, runner: HookRunner) {
    this.#tool = tool;
    this.#runner = runner;
    applyToolProxy(tool, this);
  }

  async execute(toolCallId: string, params: TParams, signal?: AbortSignal, onUpdate?: (partial: AgentToolResult<TDetails>) => void, context?: unknown): Promise<AgentToolResult<TDetails>> {
    const tool = this.#tool;
    const runner = this.#runner;
    if (runner.hasHandlers("tool_call")) {
      try {
        const callResult = await runner.emitToolCall({ type: "tool_call", toolName: tool.name, toolCallId, input: params as Record<string, unknown> });
        if (callResult?.block) throw new Error(callResult.reason || "Tool execution was blocked by a hook");
      } catch (err) {
        // As the original: an Error a handler threw is rethrown as is; anything else is described.
        if (err instanceof HookFailure && err.code === "handler_threw" && "cause" in err && !(err.cause instanceof Error)) {
          throw new Error(`Hook failed, blocking execution: ${String(err.cause)}`, { cause: err });
        }
        if (err instanceof Error) throw err;
        throw new Error(`Hook failed, blocking execution: ${String(err)}`);
      }
    }
    let result: AgentToolResult<TDetails>;
    try {
      result = await tool.execute(toolCallId, params, signal, onUpdate, context);
    } catch (err) {
      if (runner.hasHandlers("tool_result")) {
        const text = (err as Error | undefined)?.message ?? String(err);
        await runner.emit({ type: "tool_result", toolName: tool.name, toolCallId, input: params as Record<string, unknown>, content: [{ type: "text", text }], details: undefined, isError: true });
      }
      throw err;
    }
    if (!runner.hasHandlers("tool_result")) return result;
    const rr = (await runner.emit({
      type: "tool_result", toolName: tool.name, toolCallId, input: params as Record<string, unknown>, content: result.content, details: result.details, isError: false,
    })) as ToolResultEventResult | undefined;
    if (!rr) return result;
    return { content: rr.content ?? result.content, details: (rr.details ?? result.details) as TDetails };
  }
}
