// Loaded last into oh-my-pi by the scripted session (pi-rpc-session.mjs): oh-my-pi runs extensions'
// agent_end handlers one after the other, after it wrote agent_end, so this one's status line says
// every earlier extension's handler for that agent_end has returned (a dialog it opened answered).
// No import: oh-my-pi loads it as it is, from here.
export default function marksAgentEndPassed(pi: { on(event: "agent_end", handler: (event: unknown, ctx: { ui: { setStatus(key: string, text: string): void } }) => void): void }): void {
  let passed = 0;
  pi.on("agent_end", (_event, ctx) => {
    ctx.ui.setStatus("differential-agent-end-passed", String(++passed));
  });
}
