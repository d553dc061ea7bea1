// Type-level tests for the host side, checked by `tsc --noEmit` (part of `npm test`): the shapes a
// host really has are accepted, and `runner.emit()` is typed per event.
import {
  HookRunner, HookToolWrapper, createModelRegistry, createSessionManager,
  type AgentMessage, type AgentTool, type AgentToolResult, type Model, type ModelRegistry, type ToolResultEventResult,
} from "../../src/index.js";

// A tool whose parameters are an interface (no index signature).
interface BashParams { command: string; timeout?: number }
const bashTool: AgentTool<BashParams> = {
  name: "bash",
  async execute(_id, params: BashParams): Promise<AgentToolResult> {
    return { content: [{ type: "text", text: params.command }] };
  },
};

// A tool that is a class instance.
class ReadTool implements AgentTool<{ path: string }> {
  readonly name = "read";
  readonly label = "Read";
  #reads = 0;
  async execute(_id: string, params: { path: string }): Promise<AgentToolResult> {
    this.#reads++;
    return { content: [{ type: "text", text: `${params.path} (${this.#reads})` }] };
  }
}

// A model registry that is a class instance with private state, as the original's.
class Registry implements ModelRegistry {
  #models: Model[] = [];
  getAll(): Model[] { return this.#models; }
  getAvailable(): Model[] { return this.#models; }
  find(provider: string, modelId: string): Model | undefined { return this.#models.find((m) => m.provider === provider && m.id === modelId); }
  async getApiKey(_model: Model): Promise<string | undefined> { return undefined; }
  async getApiKeyForProvider(_provider: string): Promise<string | undefined> { return undefined; }
  isUsingOAuth(): boolean { return false; }
  refresh(): void {}
  getError(): string | undefined { return undefined; }
}

export async function host(): Promise<void> {
  const runner = new HookRunner([], "/repo", createSessionManager({ cwd: "/repo" }), new Registry());
  new HookRunner([], "/repo", createSessionManager(), createModelRegistry());
  new HookToolWrapper(bashTool, runner);
  new HookToolWrapper(new ReadTool(), runner);

  // emit() is typed per event.
  const redacted: ToolResultEventResult | undefined = await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "1", input: {}, content: [] });
  const cancelled: boolean | undefined = (await runner.emit({ type: "session_before_switch", reason: "new" }))?.cancel;
  const messages: AgentMessage[] = await runner.emit({ type: "context", messages: [] });
  const nothing: undefined = await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
  // @ts-expect-error turn_start has no result
  const wrong: { cancel?: boolean } = await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
  // @ts-expect-error a tool_result result has no cancel
  void (await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "1", input: {}, content: [] }))?.cancel;
  void [redacted, cancelled, messages, nothing, wrong];
}
