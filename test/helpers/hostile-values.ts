/**
 * fast-check arbitraries for the fuzz harness (test/host-fuzz.test.ts): what a hostile hook may send
 * back, and through which path. `fc.anything()` with hostile keys and leaves, plus targeted values:
 * own `__proto__`/`constructor`/`prototype` keys as JSON.parse makes them, deep nesting, huge
 * strings, terminal control sequences, paths with `..` and NUL bytes, and what only a hook can make
 * (functions, throwing getters, thenables, cycles, proxies). Values reach the hook as JSON data
 * (fixtures/hostile/lib/hostile-values.ts) and the hook builds them itself.
 */
import fc from "fast-check";
import { encodeTree, Tag } from "../../fixtures/hostile/lib/hostile-values.js";
import { EVENTS as TABLE, type ResultEvent } from "../../src/contract/events.js";

export const HOSTILE_KEYS = [
  "__proto__", "constructor", "prototype", "toJSON", "then", "valueOf", "toString", "hasOwnProperty", "__defineGetter__",
  "length", "polluted", "BASH_ENV", "ENV", "NODE_OPTIONS", "LD_PRELOAD", "shell", "env", "cwd", "block", "reason", "cancel",
  "content", "details", "messages", "message", "input", "type", "customType", "role", "Symbol(Symbol.iterator)", "@@iterator", "",
];
/** Terminal control sequences: OSC 52 (clipboard), OSC 0 (title), CSI 2J, C1 CSI, DCS, hyperlinks, bidi overrides, a lone surrogate. */
export const CONTROL = [
  "\x1b]52;c;cHduZWQ=\x07", "\x1b]0;pwned\x07", "\x1b[2J", "\x1b[H\x1b[3J", "\x1b[31mred\x1b[0m", "\x9b2J", "\x1bP+q544e\x1b\\",
  "\x1b]8;;http://evil/\x07link\x1b]8;;\x07", "\x07", "\r", "\b\b\b", "\0", "\u202e", "\ud800", "\x1b[?1049h", "\x1bc", "\x85",
];
/** Paths and arguments a hook may aim at the host. */
export const PATHS = [
  "/", "/etc", "/etc/shadow", "/proc/self/root", "/proc/1/environ", "/root", "/tmp", "/dev/tty", "..", "../..", "../../../../..",
  "a/../../b", "./", ".", "\0", "a\0b", "/tmp\0/etc", "~", "$HOME", "-rf", "--", "-c", "",
];

const key = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...HOSTILE_KEYS) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) });
export const hostileString = fc.oneof(
  fc.constantFrom(...CONTROL, ...PATHS, ...HOSTILE_KEYS),
  fc.string({ unit: "binary", maxLength: 24 }),
  fc.array(fc.constantFrom(...CONTROL, "x", "ok ", "é", "界"), { maxLength: 6 }).map((parts) => parts.join("")),
);
const huge = fc.record({ s: fc.constantFrom("x", "\x1b[2J", "界", "\n"), n: fc.constantFrom(1_000, 65_537, 1_048_577, 17 * 1024 * 1024) })
  .map(({ s, n }) => new Tag({ $: "rep", s, n: Math.ceil(n / s.length) }));
const deep = fc.record({ n: fc.constantFrom(63, 65, 1_000, 5_000, 100_000), array: fc.boolean() })
  .map(({ n, array }) => new Tag({ $: "deep", n, array, v: "bottom" }));
/** Own prototype keys, as JSON.parse makes them. */
const parsed = fc.constantFrom(
  '{"__proto__":{"polluted":"fuzz","BASH_ENV":"/tmp/x"}}', '{"constructor":{"prototype":{"polluted":"fuzz"}}}',
  '{"prototype":{"polluted":"fuzz"}}', '[{"__proto__":{"polluted":"fuzz"}}]', '{"__proto__":[1,2]}', '{"__proto__":null}',
).map((v) => new Tag({ $: "json", v }));
/** A value with own prototype keys where a walk of the host's objects would reach them: at the top, under a field, in an element. */
export function polluting(fields: string[]): fc.Arbitrary<unknown> {
  const field = fc.constantFrom(...fields, "__proto__", "constructor");
  return fc.oneof(
    parsed,
    fc.tuple(field, parsed).map(([f, p]) => ({ [f]: p })),
    fc.tuple(field, field, parsed).map(([f, g, p]) => ({ [f]: { [g]: p } })),
    fc.tuple(field, parsed).map(([f, p]) => [{ type: "text", text: "x", [f]: p }]),
  );
}
/** What only a hook can make. */
const hookOnly = fc.constantFrom("fn", "throws", "cycle", "rejects", "proxy", "error", "regexp", "sab", "class").map(($) => new Tag({ $, v: "x" }));
const special = fc.constantFrom(NaN, -0, Infinity, -Infinity, 2 ** 53 + 1, -1e308, 5e-324, undefined, null);

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString }, { weight: 2, arbitrary: special }, { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.bigInt() }, { weight: 1, arbitrary: huge },
  { weight: 1, arbitrary: deep }, { weight: 2, arbitrary: parsed }, { weight: 1, arbitrary: hookOnly },
);
const wrapping = (inner: fc.Arbitrary<unknown>) => fc.oneof(
  inner.map((v) => new Tag({ $: "getter", k: "content", v: encodeTree(v) })),
  inner.map((v) => new Tag({ $: "thenable", v: encodeTree(v) })),
  inner.map((v) => new Tag({ $: "promise", v: encodeTree(v) })),
  inner.map((v) => new Tag({ $: "toJSON", v: encodeTree(v) })),
);

/** Any hostile value: fc.anything over hostile keys and leaves, a bare leaf, or one wrapped in a getter, a thenable or a toJSON. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: leaf },
  { weight: 4, arbitrary: fc.anything({
    key, values: [leaf], maxDepth: 3, maxKeys: 4, depthSize: "small",
    withBigInt: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withSparseArray: true, withTypedArray: true, withBoxedValues: true,
  }) },
  { weight: 1, arbitrary: wrapping(leaf) },
);

/** Values shaped like a valid answer, with a hostile value in one place (so validation goes deeper than the top). */
export function almostValid(event: string): fc.Arbitrary<unknown> {
  const v = hostileValue;
  switch (event) {
    case "tool_call": return fc.oneof(fc.record({ block: v, reason: v }), fc.record({ block: fc.constant(true), reason: v }));
    case "tool_result": return fc.oneof(
      fc.record({ content: fc.array(fc.record({ type: fc.constant("text"), text: v }), { maxLength: 3 }) }),
      fc.record({ content: fc.tuple(fc.record({ type: fc.constant("image"), data: v, mimeType: v })) }),
      fc.record({ details: v }), fc.record({ isError: v }),
    );
    case "context": return fc.record({ messages: fc.array(fc.oneof(
      fc.record({ role: fc.constant("user"), content: v, timestamp: fc.constant(1) }),
      fc.record({ role: fc.constant("custom"), customType: v, content: v, display: fc.constant(true), timestamp: fc.constant(2) }),
      v,
    ), { maxLength: 3 }) });
    case "before_agent_start": return fc.record({ message: fc.record({ customType: v, content: v, display: fc.boolean(), details: v }) });
    default: return fc.record({ cancel: v });
  }
}

/** The events the fuzz drives (one per rule, and both bail keys). */
export const EVENTS = ["tool_call", "tool_result", "context", "before_agent_start", "session_before_switch"] as const satisfies readonly ResultEvent[];
/** The fields a result of each has, and the fields of its payload a hook may edit (`type` too): its row's (src/contract/events.ts). */
export const RESULT_FIELDS: Record<string, string[]> = Object.fromEntries(EVENTS.map((t) => [t, Object.keys(TABLE[t].result.shape)]));
export const EVENT_FIELDS: Record<string, string[]> = Object.fromEntries(EVENTS.map((t) => [t, [...Object.keys(TABLE[t].payload), "type"]]));
