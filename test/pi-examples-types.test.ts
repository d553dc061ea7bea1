/**
 * pi 0.73.1's example extensions type-check with `hookbox/hooks` in place of pi's types: each type an
 * example imports from `@mariozechner/pi-coding-agent` that `hookbox/hooks` exports by name is taken
 * from `hookbox/hooks` (test/support/pi-examples-types.ts), and tsc checks those examples against pi's
 * installed packages; an error the same examples do not have as pi ships them is of hookbox's making.
 * The control checks them against a `hookbox/hooks` whose `Theme` is the one this check caught (an
 * index signature, which pi's `Theme` class cannot meet): it must fail.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { examplesDir } from "../scripts/pi-examples.js";
import { tempDir } from "./helpers/files.js";
import { ROOT } from "./helpers/host.js";
import { installPiDir } from "./support/pi-agent.js";
import { hookboxHookNames, swappableExamples, typeCheckExamples, type TypeCheck } from "./support/pi-examples-types.js";

/**
 * The errors of the swapped examples that are not of a drift hookbox can fix: a message typed with
 * hookbox's `AgentMessage` handed where pi's is asked for. hookbox's is the union of the messages of
 * the agents it hosts (oh-my-pi's `pythonExecution` and `fileMention`, the original's `hookMessage`),
 * wider than pi's, so it cannot be given to pi's narrower type (docs/extension.md, "Types").
 */
const WIDER_THAN_PI = [
  /^confirm-destructive\.ts\(30,14\): error TS2677: /, // `(e): e is SessionMessageEntry` over pi's entries
  /^handoff\.ts\(44,3\): error TS2322: /, // returns an entry's message as pi's AgentMessage
];

/** The errors of `swapped` that pi's own check of the same examples does not have, and are not WIDER_THAN_PI. */
const ofHookbox = (swapped: TypeCheck, own: TypeCheck) =>
  swapped.errors.filter((e) => !own.errors.includes(e) && !WIDER_THAN_PI.some((known) => known.test(e)));

describe("pi 0.73.1's example extensions against hookbox/hooks", () => {
  let examples: string;
  let modules: string;
  let only: string[];
  let swapped: TypeCheck;
  let own: TypeCheck;

  beforeAll(() => {
    modules = join(installPiDir(), "node_modules");
    examples = examplesDir(installPiDir());
    only = swappableExamples(examples, hookboxHookNames());
    swapped = typeCheckExamples(examples, modules, { swap: true, only });
    own = typeCheckExamples(examples, modules, { swap: false, only });
  }, 240_000);

  it("the examples that import a type hookbox/hooks exports take it from hookbox/hooks (Theme, SessionEntry, …)", () => {
    expect(only).toEqual(expect.arrayContaining(["handoff.ts", "overlay-test.ts", "todo.ts"]));
    expect(swapped.swapped).toEqual(only);
  });

  it("with hookbox/hooks they have no type error that pi's own types do not give, but a message of hookbox's wider union given to pi", () => {
    expect(ofHookbox(swapped, own)).toEqual([]);
    expect(swapped.errors.filter((e) => WIDER_THAN_PI.some((known) => known.test(e)))).toHaveLength(WIDER_THAN_PI.length);
  });

  it("control: a hookbox/hooks whose Theme has an index signature fails the check, naming pi's Theme", { timeout: 240_000 }, () => {
    const dir = tempDir("hookbox-hooks-control-");
    const hooks = join(dir, "hooks.ts");
    writeFileSync(hooks, `export type * from ${JSON.stringify(join(ROOT, "src", "hooks.ts"))};\n`
      + "export interface Theme { fg(color: string, text: string): string; bold(text: string): string; [key: string]: unknown }\n");
    const broken = typeCheckExamples(examples, modules, { swap: true, only: ["overlay-test.ts"], hooks });
    expect(ofHookbox(broken, own)).toEqual([expect.stringMatching(/^overlay-test\.ts\(\d+,\d+\): error TS2345: .*Theme/)]);
  });
});
