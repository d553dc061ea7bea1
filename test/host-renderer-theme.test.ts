/** A message renderer styles with the theme it is called with. */
import { describe, expect, it } from "vitest";
import { createNoOpUIContext, type Theme } from "../src/index.js";
import { start } from "./helpers/host.js";
import { IN_PROCESS } from "./support/isolation.js";

const themed = (name: string): Theme => ({
  fg: (color, text) => `<${name}:${color}>${text}</>`, bg: (_c, t) => t, bold: (t) => `*${t}*`, italic: (t) => t, underline: (t) => t,
});

describe("message renderers", () => {
  // Process mode has no synchronous renderers (README, "What is not done"): default rendering there.
  it.skipIf(IN_PROCESS)("a renderer styles with the theme argument it was called with, not the UI's theme, in render() too", async () => {
    const { runner, errors } = await start(["renders-deploy-card"], { init: { uiContext: { ...createNoOpUIContext(), get theme() { return themed("ui"); } } } });
    const render = runner.getMessageRenderer("deploy")!;
    const message = { role: "hookMessage", customType: "deploy", content: "v2", display: true, timestamp: 1 };
    const component = render(message as never, { expanded: true }, themed("preview"))!;
    expect(component.render(80)).toEqual(["<preview:accent>*deploy v2*</>", "<preview:dim>details</>"]);
    expect(render(message as never, { expanded: false }, themed("other"))!.render(80)).toEqual(["<other:accent>*deploy v2*</>"]);
    expect(errors).toEqual([]);
  });

  it.runIf(IN_PROCESS)("in process and sandbox modes a renderer gives undefined (the TUI's default rendering), whatever the theme", async () => {
    const { runner } = await start(["renders-deploy-card"]);
    expect(runner.getMessageRenderer("deploy")!({ customType: "deploy", content: "v2" } as never, { expanded: false }, themed("preview"))).toBeUndefined();
  });
});
