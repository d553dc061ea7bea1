/**
 * Two observed runs compared: their first difference, in a sentence, and what the isolated run
 * says was refused (by hookbox/extension, or by the module's policy).
 */
import type { Observed } from "./observe.js";

/** The first place `a` and `b` differ (a path into them), with both values there; undefined when equal. */
export function firstDifference(a: unknown, b: unknown, path = ""): { path: string; a: unknown; b: unknown } | undefined {
  if (Object.is(a, b)) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length || i >= b.length) return { path: `${path}[${i}]`, a: a[i], b: b[i] };
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  return { path, a, b };
}

const short = (v: unknown, n = 90) => {
  const s = v === undefined ? "(nothing)" : typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

/** What an event is, for a difference's place: its type, and for a UI request its method. */
function eventName(e: unknown): string {
  const r = e as { type?: string; method?: string; sent?: { type?: string; message?: string }; command?: string } | undefined;
  if (!r) return "";
  if (r.sent) return `sent ${r.sent.type}${r.sent.message ? ` ${r.sent.message}` : ""}`;
  return [r.type, r.method ?? r.command].filter(Boolean).join(" ");
}

/** The first difference of two observed runs, in a sentence ("" when none). */
export function describeDifference(a: Observed, b: Observed): string {
  for (const section of ["events", "apart", "requests", "stderr", "state", "exit", "files"] as const) {
    const d = firstDifference(a[section], b[section], section);
    if (!d) continue;
    const index = /^\w+\[(\d+)\]/.exec(d.path)?.[1];
    let where = d.path;
    if (section === "events" && index !== undefined) {
      const ea = a.events[Number(index)], eb = b.events[Number(index)];
      // Two different events: both, whole (short).
      if (eventName(ea) !== eventName(eb)) return `event ${index}: in-process ${short(ea)}, isolated ${short(eb)}`;
      where = `event ${index} (${eventName(ea)})${d.path.slice(`events[${index}]`.length)}`;
    } else if (section === "requests" && index !== undefined) {
      where = `model request ${index}${d.path.slice(`requests[${index}]`.length)}`;
    } else if (section === "stderr" && index !== undefined) {
      where = `stderr line ${index}`;
    }
    return `${where}: in-process ${short(d.a)}, isolated ${short(d.b)}`;
  }
  return "";
}

/** The refusal hookbox reported in the isolated run (the adapter's wording), as the member it names. */
export function refusalIn(observed: Observed): string | undefined {
  const all = [JSON.stringify(observed.events), JSON.stringify(observed.stderr)].join("\n").replace(/\\"/g, "\"");
  const member = /(pi\.on\("[^"]*"\)|pi\.\w+\("[^"]*"\)(?: with a \w+| replacing [^,]*,?)?|pi\.\w+'s \w+|pi\.\w+|ctx(?:\.ui)?\.\w+(?:'s [\w.]+| with a component factory)?) is refused by hookbox\/extension/.exec(all);
  if (member) return member[1]!.replace(/,$/, "");
  // A module that cannot load where it runs, the reason named (src/isolation/load.ts): a package for Bun only, on Node.
  const bunOnly = /the hook imports ("[^"]+"), a package for Bun only: [^"]*?in (\w+) isolation the hook runs on Node/.exec(all);
  if (bunOnly) return `${bunOnly[1]} (a package for Bun only) on Node in ${bunOnly[2]} isolation`;
  const late = /a (tool|command|flag|shortcut) registered after load \("([^"]*)"\) is refused by hookbox\/extension/.exec(all);
  if (late) return `a ${late[1]} registered after load ("${late[2]}")`;
  const other = /([^"\\:;]{0,80}) is refused by hookbox\/extension/.exec(all);
  return other ? other[1]!.trim() : undefined;
}

/**
 * What the isolated module's policy refused in the isolated run (the sandbox table: what the example
 * needs beyond `untrusted`), as the policy field and what it refused; undefined when nothing was.
 */
export function policyRefusalIn(observed: Observed, difference: string): string | undefined {
  const all = [JSON.stringify(observed.events), JSON.stringify(observed.stderr)].join("\n").replace(/\\"/g, "\"");
  // What was refused, and what it carried (pi.registerTool("x") with a promptSnippet (…), …).
  const effect = /(?:called|set) (.{1,80}?)(?: with an? (\w+) \([^)]*\))?(?:,| during) (?:[^"]{0,160}?)which its policy\.effects "\w+" does not grant/.exec(all);
  if (effect) return `policy.effects (${effect[1]}${effect[2] ? ` with a ${effect[2]}` : ""})`;
  const fs = /Access to this API has been restricted: FileSystem(Read|Write)/.exec(all);
  if (fs) return `policy.fs${fs[1]} (a file outside its grants)`;
  // A denial the module caught or rethrew bare, named once on stderr with its grant (worker/access.mjs).
  const denied = /FileSystem(Read|Write) of [^"]{1,200}? was denied by the module's policy \(ERR_ACCESS_DENIED\)\. The field that grants it: policy\.fs(?:Read|Write)/.exec(all);
  if (denied) return `policy.fs${denied[1]} (a file outside its grants)`;
  // Its output, prefixed with its name and gated (policy.terminal "text"), where pi prints it as written.
  if (difference.startsWith("stderr") && observed.stderr.some((line) => line.startsWith("[<extension>] "))) return "policy.terminal (its output prefixed and gated)";
  const field = /(pi\.\w+|ctx(?:\.\w+)+)[^"]{0,80}?(?:refused|not allowed)[^"]{0,80}?\b(policy\.\w+)/.exec(all);
  if (field) return `${field[2]} (${field[1]})`;
  const exec = /pi\.exec\("([^"]{0,40})[^)]*\) refused by its policy/.exec(all);
  return exec ? `policy.exec (pi.exec("${exec[1]}"))` : undefined;
}
