/**
 * A vitest `setupFiles` entry: after every test, in every project, the host's intrinsics are as
 * they were when the test file started (issue 22: one hook edit wrote `BASH_ENV` onto
 * `Object.prototype`, and every child process of the host inherited it). Checked: the own keys of
 * `Object.prototype`, `Array.prototype`, `Function.prototype` and `String.prototype`, and what
 * each holds (a replaced builtin counts); `process.env`'s prototype; and that `process.env` gained
 * no name planted on an intrinsic nor a name that makes a child run code (`BASH_ENV`, …).
 *
 * A test that changes them fails, naming what changed, and the change is undone first so one
 * polluting test does not take the rest of the file down with it.
 */
import { afterEach } from "vitest";

const WATCHED: ReadonlyArray<[string, object]> = [
  ["Object.prototype", Object.prototype],
  ["Array.prototype", Array.prototype],
  ["Function.prototype", Function.prototype],
  ["String.prototype", String.prototype],
];
/** Environment names that make a child process run code it names. */
const CODE_RUNNING_ENV = /^(BASH_ENV|ENV|NODE_OPTIONS|LD_PRELOAD|LD_LIBRARY_PATH|PERL5OPT|PYTHONSTARTUP|BASH_FUNC_.*)$/;

type Snapshot = Map<PropertyKey, PropertyDescriptor>;
const take = (o: object): Snapshot => new Map(Reflect.ownKeys(o).map((k) => [k, Object.getOwnPropertyDescriptor(o, k)!]));
const same = (a: PropertyDescriptor, b: PropertyDescriptor) => a.value === b.value && a.get === b.get && a.set === b.set;

const snapshots = WATCHED.map(([name, o]) => [name, o, take(o)] as const);
const envPrototype = Object.getPrototypeOf(process.env) as object | null;
const envAtStart = new Set(Object.keys(process.env));

afterEach(() => {
  const changes: string[] = [];
  const planted = new Set<string>();
  for (const [name, o, before] of snapshots) {
    for (const key of Reflect.ownKeys(o)) {
      const was = before.get(key);
      const now = Object.getOwnPropertyDescriptor(o, key)!;
      if (was && same(was, now)) continue;
      changes.push(`${name}[${String(key)}] was ${was ? "replaced" : "added"}`);
      if (typeof key === "string") planted.add(key);
      // Undo, so the next test starts clean.
      if (was) Object.defineProperty(o, key, was);
      else Reflect.deleteProperty(o, key);
    }
    for (const [key, was] of before) {
      if (Object.getOwnPropertyDescriptor(o, key)) continue;
      changes.push(`${name}[${String(key)}] was deleted`);
      Object.defineProperty(o, key, was);
    }
  }
  if (Object.getPrototypeOf(process.env) !== envPrototype) {
    changes.push("process.env's prototype was replaced");
    try { Object.setPrototypeOf(process.env, envPrototype); } catch { /* reported */ }
  }
  for (const key of Object.keys(process.env)) {
    if (envAtStart.has(key) || !(planted.has(key) || CODE_RUNNING_ENV.test(key))) continue;
    changes.push(`process.env gained ${key}`);
    delete process.env[key];
  }
  if (changes.length > 0) throw new Error(`the host's intrinsics changed during this test: ${changes.join("; ")}`);
});
