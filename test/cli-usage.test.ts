import { describe, expect, it } from "vitest";
import { Progress, statsTable, table, type Output } from "../src/cli/render.js";
import { displayWidth } from "../src/runner/status-line.js";
import { spawn } from "node:child_process";
import { BIN, ROOT, hookbox } from "./cli-run.js";

function sink(isTTY: boolean): Output & { text: string } {
  const out = { text: "", isTTY, columns: 80, write(t: string) { out.text += t; } };
  return out;
}

describe("hookbox --help and friends", () => {
  it("prints the overview with every command and examples, and exits 0", async () => {
    const r = await hookbox(["--help"]);
    expect(r.code).toBe(0);
    for (const text of ["hookbox check", "hookbox emit", "hookbox replay", "Exit codes:", "Examples ("]) expect(r.stdout).toContain(text);
  });

  it.each(["check", "emit", "replay"])("prints the help of %s with its options and examples", async (command) => {
    const r = await hookbox([command, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: hookbox ${command} `));
    expect(r.stdout).toContain("--json");
    expect(r.stdout).toMatch(new RegExp(`Examples \\(examples/ ships in the package\\):\n  hookbox ${command} `));
  });

  it("runs every example its helps show on the shipped examples/ as written, from the package's folder: each exits 0", { timeout: 60_000 }, async () => {
    const helps = await Promise.all([[], ["check"], ["emit"], ["replay"]].map(async (c) => (await hookbox([...c, "--help"])).stdout));
    const examples = helps.flatMap((help) => help.slice(help.indexOf("\nExamples")).replace(/ \\\n +/g, " ").split("\n").filter((l) => l.startsWith("  hookbox ")))
      .map((l) => l.trim()).filter((l) => [...l.matchAll(/\S+\.(ts|jsonl?)\b/g)].every(([file]) => file.startsWith("examples/")));
    expect(examples.length).toBeGreaterThanOrEqual(8); // the overview's three, then each command's own
    const ran = await Promise.all(examples.map((example) => new Promise<{ example: string; status: number | null; printed: boolean }>((resolve, reject) => {
      const child = spawn("sh", ["-c", example.replace(/^hookbox /, `"${process.execPath}" "${BIN}" `)], { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] });
      let printed = false;
      child.stdout.on("data", () => { printed = true; });
      child.on("error", reject);
      child.on("close", (status) => resolve({ example, status, printed }));
    })));
    expect(ran).toEqual(examples.map((example) => ({ example, status: 0, printed: true })));
  });

  it("prints the package version", async () => {
    const r = await hookbox(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("rejects an unknown command with exit 2, naming it and the commands there are", async () => {
    const r = await hookbox(["fire"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('hookbox: unknown command "fire" (commands: check, emit, replay, trust, claude, codex, gemini, opencode, log; see hookbox --help)\n');
  });
});

describe("flags: each command parses and lists exactly its own", () => {
  it.each([
    ["check", ["--polcy", "x", "a.ts"], "unknown option --polcy (did you mean --policy?)"],
    ["emit", ["a.ts", "--evnt", "tool_call"], "unknown option --evnt (did you mean --event?)"],
    ["replay", ["a.ts", "--evnts", "s.jsonl"], "unknown option --evnts (did you mean --events?)"],
    ["trust", [".", "--yse"], "unknown option --yse (did you mean --yes?)"],
    ["check", ["--frobnicate", "a.ts"], "unknown option --frobnicate"],
    ["check", ["-x", "a.ts"], "unknown option -x"],
    // check runs no handler and shows no prompt: the UI and deadline flags are not its own.
    ["check", ["--confirm", "yes", "a.ts"], "unknown option --confirm"],
    ["emit", ["a.ts", "--event"], "--event needs a value: --event <type> (a value starting with \"-\" is written --event=<value>)"],
    ["emit", ["a.ts", "--json=yes"], "--json takes no value"],
    ["check", ["--agent", "py", "a.ts"], "--agent must be \"hooks\", \"pi\" or \"omp\", got \"py\" (did you mean pi?)"],
  ])("hookbox %s %j: exit 2, %s", async (command, args, message) => {
    const r = await hookbox([command, ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`hookbox ${command}: ${message}\n(see hookbox ${command} --help)\n`);
  });

  it("each command's help lists exactly the flags it parses, each once, and no line twice", async () => {
    const { CHECK } = await import("../src/cli/check.js");
    const { EMIT } = await import("../src/cli/emit.js");
    const { REPLAY } = await import("../src/cli/replay.js");
    const { TRUST } = await import("../src/cli/trust.js");
    for (const command of [CHECK, EMIT, REPLAY, TRUST]) {
      const r = await hookbox([command.name, "--help"]);
      expect(r.stdout).toBe(command.help);
      const listed = [...r.stdout.matchAll(/^ {2}(?:-\w, )?--([\w-]+)/gm)].map((m) => m[1]);
      expect(listed.sort(), command.name).toEqual(Object.keys(command.flags).sort());
      const lines = r.stdout.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("  hookbox "));
      expect(lines.filter((l, i) => lines.indexOf(l) !== i), command.name).toEqual([]);
    }
    expect(Object.keys(CHECK.flags)).not.toContain("confirm");
    expect(Object.keys(CHECK.flags)).not.toContain("timeout");
  });
});

describe("hookbox claude", () => {
  it("refuses --settings and --setting-sources (exit 2): they are how Claude Code is kept from running the project's hooks", async () => {
    for (const flag of ["--settings", "--setting-sources", "--settings=x.json"]) {
      const r = await hookbox(["claude", "-p", "hi", flag, "x"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${flag.split("=")[0]} is set by hookbox claude`);
    }
  });
});

describe("the CLI's renderer", () => {
  it("draws a progress bar on a terminal, redrawn under each line and cleared at the end", () => {
    const out = sink(true);
    const p = new Progress(out, 2, true);
    p.line("one\n");
    p.tick();
    p.line("two\n");
    p.tick();
    p.clear();
    expect(out.text).toContain("[");
    expect(out.text).toContain("2/2 100%");
    expect(out.text.endsWith("\r\x1b[K")).toBe(true);
    expect(out.text.replace(/\r\x1b\[K(\[[#-]+\] \d+\/\d+ \d+%)?/g, "")).toBe("one\ntwo\n");
  });

  it("draws no progress bar when the output is not a terminal", () => {
    const out = sink(false);
    const p = new Progress(out, 2, true);
    p.line("one\n");
    p.tick();
    p.clear();
    expect(out.text).toBe("one\n");
  });

  it("aligns table columns by display width when cells hold CJK or emoji", () => {
    const lines = table(["hook", "calls"], [["hooks/状态.ts", "1"], ["hooks/🚀.ts", "22"], ["hooks/a.ts", "333"]], [false, true]).split("\n");
    const edges = lines.slice(0, 4).map((l) => displayWidth(l));
    expect(new Set(edges).size).toBe(1);
  });

  it("aligns table columns, numbers to the right", () => {
    expect(table(["a", "n"], [["long", "1"], ["x", "100"]], [false, true])).toBe("a       n\nlong    1\nx     100\n");
  });

  it("adds a skipped column only when an event skipped a restarting or disabled hook", () => {
    const base = { hookPath: "a.ts", state: "disabled" as const, calls: 1, events: { turn_start: { calls: 1, p50: 1, p99: 1, max: 1 } }, latency: { p50: 1, p99: 1, max: 1 }, errors: { crashed: 1 }, restarts: 0, reloads: 0 };
    expect(statsTable([{ ...base, skipped: 0 }])).not.toContain("skipped");
    expect(statsTable([{ ...base, skipped: 2 }]).split("\n")[1]).toMatch(/crashed 1\s+0\s+2$/);
  });

  it("draws one row per hook and event, with a dash for a hook that ran nothing", () => {
    const text = statsTable([
      { hookPath: "a.ts", state: "ready", calls: 3, events: { tool_call: { calls: 2, p50: 0.5, p99: 1, max: 1 }, turn_start: { calls: 1, p50: 2, p99: 2, max: 2 } }, latency: { p50: 0.5, p99: 2, max: 2 }, errors: { timeout: 1 }, restarts: 1, reloads: 0, skipped: 0 },
      { hookPath: "b.ts", state: "disabled", calls: 0, events: {}, latency: { p50: 0, p99: 0, max: 0 }, errors: {}, restarts: 3, reloads: 0, skipped: 0 },
    ]);
    expect(text.split("\n")).toEqual([
      "hook  state     event       calls      p50      p99  errors     restarts",
      "a.ts  ready     tool_call       2  0.50 ms  1.00 ms  timeout 1         1",
      "                turn_start      1  2.00 ms  2.00 ms",
      "b.ts  disabled  -               0        -        -  -                 3",
      "",
    ]);
  });
});

describe("the CLI's documentation", () => {
  it("docs/cli.md and the README show the command's help exactly as it prints it, and name every command's own help", { timeout: 60_000 }, async () => {
    const { readFileSync } = await import("node:fs");
    const docs = readFileSync(new URL("../docs/cli.md", import.meta.url), "utf8");
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const help = (await hookbox(["--help"])).stdout;
    expect(docs).toContain(`\`\`\`\n${help}\`\`\``);
    expect(readme).toContain(`$ npx hookbox --help\n${help}\`\`\``);
    // Each command the help lists is described on the page (its flags are in its own --help).
    for (const [, command] of help.matchAll(/^  hookbox (\w[\w-]*) /gm)) expect(docs).toMatch(new RegExp(`^- \`${command}\`: `, "m"));
  });
});
