/**
 * pi 0.73.1's example extensions type-check with `hookbox/hooks` in place of pi's types: each type an
 * example imports from `@mariozechner/pi-coding-agent` that `hookbox/hooks` exports by name is taken
 * from `hookbox/hooks` (test/support/pi-examples-types.ts), and tsc checks those examples against pi's
 * installed packages; an error the same examples do not have as pi ships them is of hookbox's making,
 * and there is none. Both directions are checked: pi's values go where hookbox's types are asked for
 * (`overlay-test.ts` hands pi's `Theme` on), and values typed with hookbox's go where pi's are asked
 * for (`handoff.ts` returns an entry's message as pi's `AgentMessage`; `confirm-destructive.ts` narrows
 * pi's entries to hookbox's `SessionMessageEntry`), because `AgentMessage` in `hookbox/hooks` is
 * exactly pi's (oh-my-pi's roles are `hookbox/hooks/omp`'s: test/omp-types.test.ts).
 * The controls must fail: the check against a `hookbox/hooks` whose `Theme` is the one this check
 * caught (an index signature, which pi's `Theme` class cannot meet), and against `hookbox/hooks/omp`
 * (its `AgentMessage` has oh-my-pi's roles too, so it is not pi's).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { examplesDir } from "../scripts/pi-examples.js";
import { tempDir } from "./helpers/files.js";
import { ROOT } from "./helpers/host.js";
import { installPiDir } from "./support/pi-agent.js";
import { hookboxHookNames, swappableExamples, typeCheckExamples, type TypeCheck } from "./support/pi-examples-types.js";

/** The errors of `swapped` that pi's own check of the same examples does not have. */
const ofHookbox = (swapped: TypeCheck, own: TypeCheck) => swapped.errors.filter((e) => !own.errors.includes(e));

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

  it("with hookbox/hooks they have no type error that pi's own types do not give, a message they read from hookbox's types given back to pi included", () => {
    expect(only).toEqual(expect.arrayContaining(["confirm-destructive.ts", "handoff.ts"]));
    expect(ofHookbox(swapped, own)).toEqual([]);
  });

  it("control: a hookbox/hooks whose Theme has an index signature fails the check, naming pi's Theme", { timeout: 240_000 }, () => {
    const dir = tempDir("hookbox-hooks-control-");
    const hooks = join(dir, "hooks.ts");
    writeFileSync(hooks, `export type * from ${JSON.stringify(join(ROOT, "src", "hooks.ts"))};\n`
      + "export interface Theme { fg(color: string, text: string): string; bold(text: string): string; [key: string]: unknown }\n");
    const broken = typeCheckExamples(examples, modules, { swap: true, only: ["overlay-test.ts"], hooks });
    expect(ofHookbox(broken, own)).toEqual([expect.stringMatching(/^overlay-test\.ts\(\d+,\d+\): error TS2345: .*Theme/)]);
  });

  it("control: with hookbox/hooks/omp in its place (oh-my-pi's roles merged into AgentMessage) a message handed back to pi fails the check", { timeout: 240_000 }, () => {
    const wider = typeCheckExamples(examples, modules, { swap: true, only: ["confirm-destructive.ts", "handoff.ts"], hooks: join(ROOT, "src", "hooks-omp.ts") });
    expect(ofHookbox(wider, own)).toEqual([
      expect.stringMatching(/^confirm-destructive\.ts\(\d+,\d+\): error TS2677: /), // `(e): e is SessionMessageEntry` over pi's entries
      expect.stringMatching(/^handoff\.ts\(\d+,\d+\): error TS2322: /), // an entry's message returned as pi's AgentMessage
    ]);
  });
});
