/**
 * The reading of a module's source (src/extension/reading.ts) that lets a start with no record
 * mirror an event-only module: each rule with a source that passes it and one that fails it. A
 * source the reading is not certain of answers undefined (the module then loads before the
 * factory returns); comments never count, and a name built at run time is not seen (the adapter
 * takes it on arrival, with a warning: test/e2e-pi-first-start.test.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LOAD_TIME_MEMBERS, readModule } from "../src/extension/reading.js";
import { REFUSED_AT_LOAD } from "../worker/extension-members.mjs";

const EXTENSIONS = join(import.meta.dirname, "..", "fixtures", "extensions");

const dir = mkdtempSync(join(tmpdir(), "hookbox-reading-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** A module with `body` as the factory's body (and `top` above it), read for `line` with pi's packages as `agentNames`. */
function read(body: string, { top = "", line = "pi", agentNames = [] as string[], ext = "ts" } = {}) {
  const file = join(dir, `m${n++}.${ext}`);
  writeFileSync(file, `${top}\nexport default function (pi) {\n${body}\n}\n`);
  return readModule(file, line as "pi" | "omp", { alias: Object.fromEntries(agentNames.map((name) => [name, "/nowhere"])), native: [] });
}

const events = (manifest: ReturnType<typeof readModule>) => manifest?.events;

describe("reading an event-only module's source", () => {
  it("counts each pi.on(\"<literal>\", …) of an event the agent carries, and answers no commands or renderers", () => {
    expect(read(`pi.on("tool_call", () => undefined);\npi.on('context', () => undefined);\npi.on(\`tool_call\`, () => undefined);`))
      .toEqual({ events: { tool_call: 2, context: 1 }, commands: [], renderers: [] });
  });

  it("leaves out an on() of an event the agent does not carry (a process or emitter event)", () => {
    expect(events(read(`process.on("exit", () => {});\npi.on("session_start", () => {});`))).toEqual({ session_start: 1 });
  });

  it("is not certain of an on used any other way: a computed event name, on taken off pi, bound, optional-called, or named as a string", () => {
    expect(read(`const name = "tool_call";\npi.on(name, () => undefined);`)).toBeUndefined();
    expect(read(`const { on } = pi;\non("tool_call", () => undefined);`)).toBeUndefined();
    expect(read(`const on = pi.on.bind(pi);\non("tool_call", () => undefined);`)).toBeUndefined();
    expect(read(`pi?.on("tool_call", () => undefined);`)).toBeUndefined();
    expect(read(`pi["on"]("tool_call", () => undefined);`)).toBeUndefined();
    expect(read(`pi.on(\`tool_\${"call"}\`, () => undefined);`)).toBeUndefined();
  });

  it("is not certain of a module that names a member the agent takes at load, as a name or as a string, however spelt (registerCommand but in the form it reads)", () => {
    for (const member of ["registerCommand", "registerTool", "registerFlag", "getFlag", "registerShortcut", "registerMessageRenderer", "registerProvider"]) {
      expect(LOAD_TIME_MEMBERS.has(member) || /^register/.test(member), member).toBe(true);
      expect(read(`pi.on("tool_call", () => undefined);\npi.${member}("x", {});`), member).toBeUndefined();
      expect(read(`const { ${member}: r } = pi;`), member).toBeUndefined();
      expect(read(`pi[${JSON.stringify(member)}]("x", {});`), member).toBeUndefined();
    }
    expect(read(`pi.regis\\u0074erCommand("x", {});`)).toBeUndefined();
    expect(read(`pi["regis\\x74erCommand"]("x", {});`)).toBeUndefined();
    // A local helper named like a registration is not told apart from one: not certain either.
    expect(read(`registerHandlers(pi);`, { top: "function registerHandlers(pi) { pi.on(\"tool_call\", () => undefined); }" })).toBeUndefined();
  });

  it("does not count a member named in a comment or in prose inside a string; a name built at run time is not seen", () => {
    expect(events(read(`// later: pi.registerCommand("x") and pi.on(name)\n/* registerTool */\npi.on("tool_call", () => ({ block: true, reason: "use registerCommand instead" }));`)))
      .toEqual({ tool_call: 1 });
    expect(events(read(`pi.on("tool_call", () => undefined);\npi["regis" + "terCommand"]("hidden", { handler: async () => {} });`))).toEqual({ tool_call: 1 });
  });

  it("is not certain, in every agent, of a module naming a member whose use at load fails the load (the worker's table): oh-my-pi's pi.arktype and pi.pi, setLabel with one argument", () => {
    for (const member of Object.keys(REFUSED_AT_LOAD)) expect(LOAD_TIME_MEMBERS.get(member), member).toBe(REFUSED_AT_LOAD[member]);
    for (const line of ["pi", "omp"]) {
      // pi's setLabel(entryId, label) from a handler crosses: read.
      expect(events(read(`pi.on("tool_call", () => pi.setLabel("entry", "x"));`, { line })), line).toEqual({ tool_call: 1 });
      expect(events(read(`pi.on("tool_call", () => pi.setLabel(f(1, 2), [3, 4]));`, { line })), line).toEqual({ tool_call: 1 });
      expect(read(`pi.on("tool_call", () => undefined);\npi.setLabel("mine");`, { line }), line).toBeUndefined();
      expect(read(`pi.setLabel(f("a", "b"));`, { line }), line).toBeUndefined();
      expect(read(`pi.setLabel(...args);`, { line }), line).toBeUndefined();
      expect(read(`const label = pi.setLabel;\nlabel("mine");`, { line }), line).toBeUndefined();
      expect(read(`pi["setLabel"]("entry", "x");`, { line }), line).toBeUndefined();
      expect(read(`pi.on("tool_call", () => undefined);\npi.arktype({ text: "string" });`, { line }), line).toBeUndefined();
      expect(read(`pi.on("tool_call", () => pi.zod);`, { line }), line).toBeUndefined();
      expect(read(`const agent = pi.pi;`, { line }), line).toBeUndefined();
      // The module's own parameter, named pi, is not oh-my-pi's member.
      expect(events(read(`pi.on("tool_call", () => undefined);`, { line })), line).toEqual({ tool_call: 1 });
    }
    for (const fixture of ["uses-omp-arktype.ts", "labels-itself-omp.ts", "uses-omp-schema-builders.ts", "registers-provider.ts"]) {
      expect(readModule(join(EXTENSIONS, fixture), "pi", undefined), fixture).toBeUndefined();
    }
    // An event oh-my-pi refuses would fail the load: not certain.
    expect(read(`pi.on("session_stop", () => undefined);`, { line: "omp" })).toBeUndefined();
  });

  it("is not certain of code it cannot see evaluated or imported: eval, Function, a computed import() or require()", () => {
    expect(read(`eval("pi.on('tool_call', () => undefined)");`)).toBeUndefined();
    expect(read(`new Function("pi", "x")(pi);`)).toBeUndefined();
    expect(read(`const name = "./x.js";\nimport(name);`)).toBeUndefined();
    expect(read(`const r = require;\nr("./x.js");`)).toBeUndefined();
    expect(read(`import { createRequire } from "node:module";`)).toBeUndefined();
    expect(events(read(`pi.on("tool_call", async () => { await import("node:fs"); return undefined; });`))).toEqual({ tool_call: 1 });
  });

  it("reads a package import only when it is a Node builtin or one of the agent's own (type-only imports are erased)", () => {
    expect(events(read(`pi.on("tool_call", () => undefined);`, { top: `import { readFileSync } from "node:fs";\nimport { join } from "path";\nimport "fs/promises";` }))).toEqual({ tool_call: 1 });
    expect(read(`pi.on("tool_call", () => undefined);`, { top: `import leftPad from "left-pad";` })).toBeUndefined();
    expect(read(`pi.on("tool_call", () => undefined);`, { top: `const leftPad = require("left-pad");` })).toBeUndefined();
    expect(read(`pi.on("tool_call", () => undefined);`, { top: `export * from "left-pad";` })).toBeUndefined();
    const agent = { agentNames: ["@mariozechner/pi-coding-agent", "@oh-my-pi/pi-coding-agent/"] };
    expect(events(read(`pi.on("tool_call", () => undefined);`, { top: `import { convertToLlm } from "@mariozechner/pi-coding-agent";\nimport { x } from "@oh-my-pi/pi-coding-agent/tools";`, ...agent }))).toEqual({ tool_call: 1 });
    expect(read(`pi.on("tool_call", () => undefined);`, { top: `import { convertToLlm } from "@mariozechner/pi-coding-agent";` })).toBeUndefined();
    expect(events(read(`pi.on("tool_call", () => undefined);`, { top: `import type { ExtensionAPI } from "some-types";\nimport type * as T from "more-types";\nexport type { A } from "other-types";` }))).toEqual({ tool_call: 1 });
    // `import type from "x"` imports a default named `type`: a value import.
    expect(read(`pi.on("tool_call", () => undefined);`, { top: `import type from "left-pad";` })).toBeUndefined();
    // Array.from("…") is no import.
    expect(events(read(`pi.on("tool_call", () => (Array.from("ab").length ? undefined : undefined));`))).toEqual({ tool_call: 1 });
  });

  it("reads every file the module's static imports reach: their handlers count, and any rule failed there fails the module", () => {
    const lib = join(dir, "lib");
    mkdirSync(lib, { recursive: true });
    writeFileSync(join(lib, "guards.ts"), `export function guard(pi) { pi.on("tool_call", () => undefined); pi.on("context", () => undefined); }\n`);
    writeFileSync(join(lib, "flags.ts"), `export function add(pi) { pi.registerFlag("x", { type: "boolean" }); }\n`);
    writeFileSync(join(lib, "commands.ts"), `export function add(pi) { pi.registerCommand("lib", { handler: async () => {} }); }\n`);
    expect(events(read(`guard(pi);`, { top: `import { guard } from "./lib/guards.js";` }))).toEqual({ tool_call: 1, context: 1 });
    expect(read(`pi.on("tool_call", () => undefined);\nadd(pi);`, { top: `import { add } from "./lib/flags.ts";` })).toBeUndefined();
    // Commands in source order, the module's file first.
    expect(read(`pi.registerCommand("own", { handler: async () => {} });\nadd(pi);`, { top: `import { add } from "./lib/commands.ts";` })?.commands)
      .toEqual([{ name: "own" }, { name: "lib" }]);
    expect(read(`pi.registerCommand("lib", { handler: async () => {} });\nadd(pi);`, { top: `import { add } from "./lib/commands.ts";` })).toBeUndefined();
  });

  it("is not certain of a source that does not tokenize (an unclosed string) or that it cannot read", () => {
    expect(read(`pi.on("tool_call, () => undefined);`)).toBeUndefined();
    expect(readModule(join(dir, "missing.ts"), "pi", undefined)).toBeUndefined();
  });
});

describe("reading a command registration", () => {
  const handler = "handler: async (args, ctx) => { ctx.ui.notify(args, \"info\"); }";
  const commands = (body: string, options?: Parameters<typeof read>[1]) => read(body, options)?.commands;

  it("reads .registerCommand(\"<literal>\", { … }) as the worker lists it: name, a literal description, completions when getArgumentCompletions is there; in source order", () => {
    expect(read(`pi.registerCommand("one", { description: "first", ${handler} });\npi.registerCommand(\`two\`, {\n  description: \`second\`,\n  getArgumentCompletions: (prefix) => [prefix].map((p) => ({ value: p, label: p })),\n  async handler(args, ctx) { return; },\n},);`))
      .toEqual({ events: {}, commands: [{ name: "one", description: "first" }, { name: "two", description: "second", completions: true }], renderers: [] });
    // A command's handler may register handlers and name other members as any code may; keys other than the worker's are ignored by it.
    expect(read(`pi.registerCommand("x", { handler, extra: [1, 2], "description": "quoted key" });\npi.on("tool_call", () => undefined);`, { top: "const handler = async () => {};" }))
      .toEqual({ events: { tool_call: 1 }, commands: [{ name: "x", description: "quoted key" }], renderers: [] });
    // Control: the same call with a description built at run time.
    expect(read(`pi.registerCommand("x", { description: "a" + "b", ${handler} });`)).toBeUndefined();
  });

  it("is not certain of a name that is not one literal, or of a call that is not exactly (name, { … })", () => {
    expect(commands(`pi.registerCommand("x", { ${handler} });`)).toEqual([{ name: "x" }]);
    expect(read(`const name = "x";\npi.registerCommand(name, { ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand(\`x\${1}\`, { ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x" + "y", { ${handler} });`)).toBeUndefined();
    expect(read(`const options = { ${handler} };\npi.registerCommand("x", options);`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { ${handler} }, "more");`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { ${handler} }).then(() => {});`)).toBeDefined();
    expect(read(`pi?.registerCommand("x", { ${handler} });`)).toBeUndefined();
    expect(read(`pi["registerCommand"]("x", { ${handler} });`)).toBeUndefined();
    expect(read(`const registerCommand = pi.registerCommand;`)).toBeUndefined();
    // A name the adapter refuses (not a command name) fails the load: not read.
    expect(read(`pi.registerCommand("two words", { ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x\\101", { ${handler} });`)).toBeUndefined();
  });

  it("is not certain of options it cannot read: a spread, a computed key, a getter or setter, __proto__, a key twice, no handler", () => {
    expect(read(`pi.registerCommand("x", { ...base, ${handler} });`, { top: "const base = {};" })).toBeUndefined();
    expect(read(`pi.registerCommand("x", { ["description"]: "d", ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { get description() { return "d"; }, ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { set description(v) {}, ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { *handler() {} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { __proto__: { description: "inherited" }, ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { description: "a", description: "b", ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { description: "d" });`)).toBeUndefined();
    // Control: the same options, read.
    expect(commands(`pi.registerCommand("x", { description: "d", async handler() {} });`)).toEqual([{ name: "x", description: "d" }]);
  });

  it("is not certain of a description or completions whose value is not plain: a variable, an expression, undefined", () => {
    expect(read(`pi.registerCommand("x", { description, ${handler} });`, { top: "const description = \"d\";" })).toBeUndefined();
    expect(read(`pi.registerCommand("x", { description: text, ${handler} });`, { top: "const text = \"d\";" })).toBeUndefined();
    expect(read(`pi.registerCommand("x", { description: \`d \${1}\`, ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { description: "d".trim(), ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { description: "d" as string, ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { description() { return "d"; }, ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { getArgumentCompletions: undefined, ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { getArgumentCompletions, ${handler} });`, { top: "const getArgumentCompletions = () => null;" })).toBeUndefined();
    // Control: a function-valued completions by name is read as one.
    expect(commands(`pi.registerCommand("x", { getArgumentCompletions: complete, ${handler} });`, { top: "const complete = () => null;" })).toEqual([{ name: "x", completions: true }]);
  });

  it("is not certain of a command registered twice in a module (the worker keeps one), or of any other load-time member beside it", () => {
    expect(read(`pi.registerCommand("x", { ${handler} });\npi.registerCommand("x", { description: "again", ${handler} });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { ${handler} });\npi.registerFlag("f", { type: "boolean" });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { handler: async () => { pi.registerTool({}); } });`)).toBeUndefined();
    expect(read(`pi.registerCommand("x", { ${handler} });\nconst member = "registerCommand";`)).toBeUndefined();
  });
});
