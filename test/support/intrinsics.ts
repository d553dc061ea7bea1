/**
 * A vitest `setupFiles` entry: after every test, in every project, the host's intrinsics are as
 * they were when the test file started (one hook edit once wrote `BASH_ENV` onto
 * `Object.prototype`, and every child process of the host inherited it). Checked: the intrinsics
 * of ../helpers/intrinsics.ts (the own keys of `Object.prototype`, `Array.prototype`,
 * `Function.prototype`, `String.prototype` and the other builtin prototypes, and what each holds;
 * `process.env`'s prototype), and that `process.env` gained no name planted on an intrinsic nor a
 * name that makes a child run code (`BASH_ENV`, …).
 *
 * A test that changes them fails, naming what changed, and the change is undone first so one
 * polluting test does not take the rest of the file down with it.
 */
import { afterEach } from "vitest";
import { intrinsicsSnapshot } from "../helpers/intrinsics.js";

/** Environment names that make a child process run code it names. */
const CODE_RUNNING_ENV = /^(BASH_ENV|ENV|NODE_OPTIONS|LD_PRELOAD|LD_LIBRARY_PATH|PERL5OPT|PYTHONSTARTUP|BASH_FUNC_.*)$/;

const intrinsics = intrinsicsSnapshot();
const envAtStart = new Set(Object.keys(process.env));

afterEach(() => {
  const planted = intrinsics.planted();
  // Undo, so the next test starts clean.
  const changes = intrinsics.restore();
  for (const key of Object.keys(process.env)) {
    if (envAtStart.has(key) || !(planted.has(key) || CODE_RUNNING_ENV.test(key))) continue;
    changes.push(`process.env gained ${key}`);
    delete process.env[key];
  }
  if (changes.length > 0) throw new Error(`the host's intrinsics changed during this test: ${changes.join("; ")}`);
});
