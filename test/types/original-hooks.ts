// Hooks written against the original's types (its import path, its example hooks' idioms), checked
// by `tsc --noEmit` against hookbox's authoring types: any error here is drift of hookbox's making.
import type { HookAPI, SessionEntry } from "@f5-sales-demo/xcsh/hooks";

/** Custom compaction: reads the branch's messages, the model and its API key. */
export function customCompaction(pi: HookAPI) {
  pi.on("session_before_compact", async (event, ctx) => {
    const { preparation, branchEntries, signal } = event;
    const model = ctx.model ?? ctx.modelRegistry.find("anthropic", "claude-sonnet-4");
    if (!model) return undefined;
    const apiKey = await ctx.modelRegistry.getApiKey(model);
    if (!apiKey || signal.aborted) return undefined;
    const budget: number = model.contextWindow - model.maxTokens;
    const text = branchEntries
      .filter((e): e is Extract<SessionEntry, { type: "message" }> => e.type === "message")
      .map((e) => {
        const m = e.message;
        if (m.role === "user") return typeof m.content === "string" ? m.content : m.content.map((c) => (c.type === "text" ? c.text : "")).join("");
        if (m.role === "assistant") return m.content.filter((c) => c.type === "text").map((c) => c.text).join("");
        return "";
      })
      .join("\n")
      .slice(0, budget);
    return {
      compaction: { summary: `${model.provider}/${model.id} (${model.name}): ${text.length}`, firstKeptEntryId: preparation.firstKeptEntryId, tokensBefore: preparation.tokensBefore },
    };
  });
}

/** Handoff: walks the session entries by kind. */
export function handoff(pi: HookAPI) {
  pi.registerCommand("handoff", {
    description: "Continue in a new session",
    handler: async (_args, ctx) => {
      const lines: string[] = [];
      for (const entry of ctx.sessionManager.getBranch()) {
        switch (entry.type) {
          case "message":
            if (entry.message.role === "toolResult") lines.push(`${entry.message.toolName}: ${entry.message.isError ? "error" : "ok"}`);
            break;
          case "compaction":
            lines.push(entry.summary, entry.firstKeptEntryId);
            break;
          case "custom":
            lines.push(entry.customType);
            break;
          case "model_change":
            // The original's entry names the model in `model`; pi's in `provider` and `modelId`.
            lines.push("model" in entry ? entry.model : `${entry.provider}/${entry.modelId}`);
            break;
        }
      }
      const header = ctx.sessionManager.getHeader();
      const parentSession = ctx.sessionManager.getSessionFile() ?? header?.id;
      await ctx.waitForIdle();
      await ctx.newSession({ parentSession });
      pi.sendMessage({ customType: "handoff", content: lines.join("\n"), display: true }, { triggerTurn: true });
    },
  });
}

/** A Q&A command showing a custom() component that redraws through the TUI. */
export function qna(pi: HookAPI) {
  pi.registerCommand("qna", {
    handler: async (_args, ctx) => {
      const answer = await ctx.ui.custom<string | undefined>((tui, theme, done) => {
        let text = "";
        return {
          render: (width) => [theme.fg("accent", text.slice(0, width))],
          handleInput: (data) => {
            if (data === "\r") return done(text);
            text += data;
            tui.requestRender();
          },
        };
      });
      if (answer) ctx.ui.notify(answer, "info");
      const available = ctx.modelRegistry.getAvailable().map((m) => `${m.provider}/${m.id}`);
      ctx.ui.setStatus("models", `${available.length} models${ctx.modelRegistry.isUsingOAuth(ctx.model!) ? " (oauth)" : ""}`);
    },
  });
}

/** Permission gate and protected paths, as the original's examples. */
export function gates(pi: HookAPI) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName === "write" || event.toolName === "edit") {
      const path = event.input.path as string;
      if (path.includes(".env")) return { block: true, reason: `Protected path: ${path}` };
    }
    if (event.toolName !== "bash") return undefined;
    const command = event.input.command as string;
    if (!/\brm\s+-rf\b/.test(command)) return undefined;
    if (!ctx.hasUI) return { block: true, reason: "Dangerous command blocked (no UI)" };
    const choice = await ctx.ui.select(`Allow ${command}?`, ["Yes", "No"]);
    return choice === "Yes" ? undefined : { block: true, reason: "Blocked by user" };
  });
  pi.on("turn_end", async (event) => {
    for (const result of event.toolResults) if (result.isError) pi.logger.warn(result.toolName, result.content.length);
    if (event.message.role === "assistant") pi.appendEntry("turn-usage", { tokens: event.message.usage.totalTokens });
  });
}
