/**
 * The run-time option schemas (src/options/schemas.ts) and the option types name the same keys: a
 * documented option missing there, or a key there the types do not have, fails to compile.
 */
import type { DiscoverOptions } from "../../src/discovery/index.js";
import type { LoadOptions } from "../../src/runner/loader.js";
import type { SandboxOptions } from "../../src/options/options.js";
import type { RunnerOptions } from "../../src/runner/runner.js";
import { sandboxOptionsShape, SCHEMAS } from "../../src/options/schemas.js";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const sameKeys: [
  Same<keyof typeof sandboxOptionsShape, keyof SandboxOptions>,
  Same<keyof typeof SCHEMAS.loadHooks.shape, keyof LoadOptions>,
  Same<keyof typeof SCHEMAS.discoverAndLoadHooks.shape, keyof (DiscoverOptions & LoadOptions)>,
  Same<keyof typeof SCHEMAS.HookRunner.shape, keyof RunnerOptions>,
] = [true, true, true, true];
