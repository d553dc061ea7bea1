/**
 * What an isolated module writes itself reaches the agent's stderr, as in pi's process: a host
 * process runs the module through isolate() inside pi's own loader and runner
 * (test/support/isolate-output-host.mts) and its real stderr is read. Runs in each isolation
 * (vitest.config.ts: worker, process, sandbox; the Bun job: process, sandbox).
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { MAX_LINES, droppedNotice } from "../src/extension/output.js";
import { presets, resolvePolicy } from "../src/policy/policy.js";
import { AT_LOAD, AT_TOOL_CALL, NOTIFICATION } from "../fixtures/hostile/writes-escapes-to-its-output.js";
import { CONTINUED, OPENED } from "../fixtures/hostile/continues-its-line-after-another-module.js";
import { LINE } from "../fixtures/valid/writes-a-line-at-session-start.js";
import { HIDES, SHOWS } from "../fixtures/hostile/leaves-its-styling-on.js";
import { PADDED } from "../fixtures/hostile/pads-its-line-to-the-next-row.js";
import { LINE as NAMED_LINE, NAME } from "../fixtures/hostile/writes-under-a-name-with-escapes.js";
import stringWidth from "string-width";
import { ROOT, fixture, start } from "./helpers/host.js";
import { sample } from "./helpers/events.js";
import { ISOLATION } from "./support/isolation.js";

const HOST = "test/support/isolate-output-host.mts";
const ESCAPES = "hostile/writes-escapes-to-its-output.ts";
const FLOOD = "hostile/floods-its-output.ts";
/** The policy whose terminal is "text" in this isolation: untrusted needs the sandbox, confined is the default elsewhere. */
const STRICT = ISOLATION === "sandbox" ? "untrusted" : "confined";

/** A fixture's path, or `path` itself when absolute. */
const at = (path: string) => (isAbsolute(path) ? path : fixture(path));

/** The host's stderr after session_start, one tool_call and session_shutdown of `module` isolated with `policy`. */
async function hostStderr(module: string | string[], policy: string, deadlines: Record<string, number> = {}): Promise<string> {
  // Why a long deadline: on a loaded machine isolate()'s 5 s per tool call can pass, and the module is ended at session_shutdown.
  const args = JSON.stringify({ module: typeof module === "string" ? at(module) : module.map(at), options: { policy, isolation: ISOLATION, deadlines: { default: 60_000, ...deadlines } } });
  const argv = process.versions.bun ? [HOST, args] : ["--import", "tsx", HOST, args];
  // Why without NODE_EXTRA_CA_CERTS: trusted passes the whole environment, and node inside a sandbox that does not bind that file warns on its stderr.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "NODE_EXTRA_CA_CERTS"));
  const { stdout, stderr } = await promisify(execFile)(process.execPath, argv, { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 });
  expect(stdout).toBe("done\n");
  return stderr;
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe(`a module's own output reaches the agent's stderr (${ISOLATION})`, () => {
  it("under trusted (terminal \"raw\") every byte arrives once, as written, with no prefix: the OSC 777 notification and the escapes kept", async () => {
    const stderr = await hostStderr(ESCAPES, "trusted");
    expect(stderr).toBe(`${AT_LOAD}\n${NOTIFICATION}${AT_TOOL_CALL}\n`);
  }, 90_000);

  it(`under ${STRICT} (terminal "text") each line arrives once, prefixed with the module's name, the OSC 52, CSI 2J and OSC 777 removed and the tab kept`, async () => {
    const stderr = await hostStderr(ESCAPES, STRICT);
    const prefix = `[fixtures/${ESCAPES}] `;
    expect(stderr).toBe(`${prefix}load ABC\n${prefix}${AT_TOOL_CALL}\n`);
    expect(count(stderr, "load ABC")).toBe(1);
    expect(stderr).not.toMatch(/[\u001b\u0007]/);
  }, 90_000);

  it(`a flood of 1000 lines shows ${MAX_LINES}, then one line saying the rest is dropped`, async () => {
    const stderr = await hostStderr(FLOOD, STRICT);
    const prefix = `[fixtures/${FLOOD}] `;
    const lines = stderr.split("\n");
    expect(lines.slice(0, MAX_LINES)).toEqual(Array.from({ length: MAX_LINES }, (_, i) => `${prefix}flood ${i}`));
    expect(lines.slice(MAX_LINES)).toEqual([droppedNotice(`fixtures/${FLOOD}`), ""]);
  }, 90_000);

  it(`under ${STRICT} a line that leaves its styling on (conceal) ends with a reset: the next line's [module] prefix shows`, async () => {
    const module = "hostile/leaves-its-styling-on.ts";
    const stderr = await hostStderr(module, STRICT);
    const prefix = `[fixtures/${module}] `;
    expect(stderr).toBe(`${prefix}${HIDES}\x1b[0m\n${prefix}${SHOWS}\n`);
  }, 90_000);

  it(`under ${STRICT} a module's name holding terminal controls (an OSC 0, a carriage return) reaches the agent's stderr gated, in every prefix`, async () => {
    const folder = mkdtempSync(join(tmpdir(), "hookbox-named-"));
    try {
      const named = join(folder, NAME);
      copyFileSync(fixture("hostile/writes-under-a-name-with-escapes.ts"), named);
      const stderr = await hostStderr(named, STRICT);
      expect(stderr).toBe(`[${join(folder, "x[hookbox] all modules approved.ts")}] ${NAMED_LINE}\n`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 90_000);

  it(`a module's name holding terminal controls reaches the agent's stderr gated in hookbox's own report of its fault (a timeout)`, async () => {
    const folder = mkdtempSync(join(tmpdir(), "hookbox-named-"));
    try {
      const named = join(folder, NAME);
      copyFileSync(fixture("hostile/hangs-under-a-name-with-escapes.ts"), named);
      const stderr = await hostStderr(named, STRICT, { tool_call: 300 });
      expect(stderr).toContain(`hookbox: ${join(folder, "x[hookbox] all modules approved.ts")}: timeout in tool_call`);
      expect(stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 90_000);

  it(`under ${STRICT} on a terminal a line wider than it is cut into rows, each starting with the module's name: spaces cannot carry text to the start of a row`, async () => {
    const module = "hostile/pads-its-line-to-the-next-row.ts";
    const args = JSON.stringify({ module: fixture(module), options: { policy: STRICT, isolation: ISOLATION, deadlines: { default: 60_000 } } });
    const argv = [process.execPath, ...(process.versions.bun ? [] : ["--import", "tsx"]), HOST, args].map((a) => `'${a}'`).join(" ");
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "NODE_EXTRA_CA_CERTS"));
    // script(1) gives the host a terminal of 100 columns, as the agent's stderr is in a person's shell.
    const { stdout } = await promisify(execFile)("script", ["-qec", `stty cols 100 rows 24; exec ${argv}`, "/dev/null"], { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 });
    const rows = stdout.replace(/\r\n/g, "\n").split("\n").filter((row) => row !== "" && row !== "done");
    const prefix = `[fixtures/${module}] `;
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) {
      expect(row.startsWith(prefix)).toBe(true);
      expect(stringWidth(row)).toBeLessThanOrEqual(100);
    }
    expect(rows.map((row) => row.slice(prefix.length)).join("")).toBe(PADDED);
  }, 90_000);

  it(`under ${STRICT} a line a module left open ends where another module writes: its continuation starts a line with its own name, never bare (dressed as hookbox's)`, async () => {
    const continues = "hostile/continues-its-line-after-another-module.ts";
    const writes = "valid/writes-a-line-at-session-start.ts";
    const stderr = await hostStderr([continues, writes], STRICT);
    const [a, b] = [`[fixtures/${continues}] `, `[fixtures/${writes}] `];
    expect(stderr).toBe(`${a}${OPENED}\n${b}${LINE}\n${a}${CONTINUED}\n`);
    expect(stderr.split("\n").filter((line) => line.startsWith("[hookbox]"))).toEqual([]);
  }, 90_000);
});

describe("policy.terminal", () => {
  it("is \"raw\" in trusted only: confined, untrusted and a partial policy (merged over confined) pass a module's output through the gate", () => {
    expect([presets.trusted.terminal, presets.confined.terminal, presets.untrusted.terminal, resolvePolicy({ fsRead: [] }).terminal]).toEqual(["raw", "text", "text", "text"]);
  });
});

describe(`a module's output and its answers arrive in order (${ISOLATION})`, () => {
  it("a line a tool_call handler wrote before it returned reaches onLog before emitToolCall resolves, and text without a newline is passed on marked unterminated", async () => {
    const logs: Array<[string, string, boolean | undefined]> = [];
    // Why `env: {}`: trusted passes the host's whole environment, and node in a sandbox that does not bind NODE_EXTRA_CA_CERTS's file warns.
    const { runner } = await start([ESCAPES], { load: { policy: "trusted", env: {}, onLog: (_hook, level, line, unterminated) => { logs.push([level, line, unterminated]); } } });
    await runner.emitToolCall(sample("tool_call") as never);
    expect(logs).toEqual([["stderr", AT_LOAD, undefined], ["stdout", `${NOTIFICATION}${AT_TOOL_CALL}`, undefined]]);
  });
});
