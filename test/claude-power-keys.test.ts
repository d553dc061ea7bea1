/**
 * The settings keys of a project's Claude Code file that run a command are power keys (src/claude/dialect.ts
 * `powerKeys`): not loaded by Claude Code under `hookbox claude` until approved. Claude Code keeps its own
 * list of such keys in its binary (what it refuses to run from a project's settings before the trust
 * dialog); every key of that list, read from the pinned Claude Code 2.1.328, is a power key, so a key
 * Claude Code adds fails this test rather than running unapproved.
 */
import { createReadStream } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLAUDE_CODE } from "../src/claude/dialect.js";
import { installClaude } from "./support/claude-run.js";

/** Claude Code's own list: the array of settings keys that starts with "apiKeyHelper", read from its binary in chunks. */
async function commandKeys(binary: string): Promise<string[]> {
  const list = /\["apiKeyHelper"(?:,"[A-Za-z.]+")+\]/;
  let tail = "";
  for await (const chunk of createReadStream(binary, { encoding: "latin1", highWaterMark: 1 << 22 })) {
    const text = tail + (chunk as string);
    const found = list.exec(text);
    if (found) return JSON.parse(found[0]) as string[];
    tail = text.slice(-4096);
  }
  return [];
}

describe("a project's Claude Code settings that run a command", () => {
  it("every key of Claude Code 2.1.328's own list of settings that run a command is a power key (on main proxyAuthHelper, subagentStatusLine, processWrapper and policyHelpers were not)", async () => {
    const keys = await commandKeys(installClaude());
    // Control: the list was found, and it is the one that names the keys hookbox already knew.
    expect(keys).toEqual(expect.arrayContaining(["apiKeyHelper", "statusLine", "otelHeadersHelper", "proxyAuthHelper", "subagentStatusLine"]));
    expect(keys.filter((k) => !CLAUDE_CODE.powerKeys.includes(k))).toEqual([]);
  });
});
