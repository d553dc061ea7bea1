/** In-place edits of a top-level array (worker/edits.mjs): handed out as a real array, compared once the handlers ran. */
import { describe, expect, it } from "vitest";
import { plain, trackEdits } from "../worker/edits.mjs";

const messages = () => [{ role: "user", content: "a" }, { role: "assistant", content: "b" }, { role: "user", content: "c" }];
type Event = { type: string; messages: Array<{ role: string; content: string }> };
const track = () => {
  const t = trackEdits({ type: "context", messages: messages() });
  return { t, event: t.event as unknown as Event };
};

describe("a top-level array handed to handlers", () => {
  it("is a real array, the same one on each read, and reading or filtering it edits nothing", () => {
    const { t, event } = track();
    expect(Array.isArray(event.messages)).toBe(true);
    expect(event.messages).toBe(event.messages);
    const kept = event.messages.filter((m) => m.role === "user");
    expect(plain(kept)).toEqual([{ role: "user", content: "a" }, { role: "user", content: "c" }]);
    expect(t.edits()).toBeUndefined();
  });

  it.each([
    ["push", (m: Event["messages"]) => { m.push({ role: "user", content: "d" }); }, ["a", "b", "c", "d"]],
    ["splice", (m: Event["messages"]) => { m.splice(1, 1); }, ["a", "c"]],
    ["sort", (m: Event["messages"]) => { m.sort((x, y) => y.content.localeCompare(x.content)); }, ["c", "b", "a"]],
    ["an element replaced", (m: Event["messages"]) => { m[0] = { role: "user", content: "z" }; }, ["z", "b", "c"]],
    ["emptied through length", (m: Event["messages"]) => { m.length = 0; }, []],
    ["an element edited", (m: Event["messages"]) => { m[2]!.content = "C"; }, ["a", "b", "C"]],
  ])("changed by %s, comes back as the field's new value, without proxies", (_how, change, contents) => {
    const { t, event } = track();
    change(event.messages);
    const edits = t.edits() as { messages: Event["messages"] };
    expect(edits.messages.map((m) => m.content)).toEqual(contents);
    // structuredClone cannot clone a proxy: what goes back must hold none.
    expect(() => structuredClone(edits)).not.toThrow();
  });

  it("replaced as a whole field, the new value wins over the array handed out before", () => {
    const { t, event } = track();
    const old = event.messages;
    old.push({ role: "user", content: "lost" });
    event.messages = [{ role: "user", content: "new" }];
    expect((t.edits() as { messages: unknown }).messages).toEqual([{ role: "user", content: "new" }]);
  });
});
