// A slash command that saves a note into the session, and the renderer that draws it.
//   hookbox check examples/hooks/notes-command.ts
import type { HookAPI } from "hookbox/hooks";

export default function (pi: HookAPI) {
  pi.registerCommand("note", {
    description: "Save a note in the session: /note <text>",
    handler: async (args, ctx) => {
      const text = args.trim() || (await ctx.ui.input("Note", "what to remember")) || "";
      if (!text) return;
      pi.sendMessage({ customType: "note", content: text, display: true, details: { at: Date.now() } });
    },
  });
  pi.registerMessageRenderer<{ at: number }>("note", (message, _options, theme) => ({
    render: (width) => [theme.bold("note: ") + String(message.content).slice(0, Math.max(0, width - 6))],
  }));
}
