/**
 * A project's exec policy rules (`.codex/rules/*.rules`, Starlark): Codex CLI 0.169.0 loads the
 * top-level `*.rules` of a trusted project's `.codex/rules/` and lists each `allow` prefix as
 * already approved (its own `codex debug prompt-input`), so a command of that prefix runs without
 * asking. Why a whole file and a grammar of literals: Starlark computes (a decision built from
 * `"al" + "low"`, a rule in a loop or a function, `decision` left out, which means allow), so a file
 * is kept only when every statement is a `prefix_rule(…)` of literal strings and lists whose
 * `decision` is `"forbidden"` or `"prompt"`: such a file can only restrict. Anything else is hidden
 * whole, not rewritten.
 */

const TOKEN = /\s+|#[^\n]*|"[^"\\\n]*"|'[^'\\\n]*'|[A-Za-z_][A-Za-z0-9_]*|[()[\],=]/y;
const ARGUMENTS = new Set(["pattern", "decision", "justification", "match", "not_match"]);
const RESTRICTING = new Set(["forbidden", "prompt"]);

/** The file's tokens (no blanks or comments), or undefined when it holds anything else (an escape, an operator, a number). */
function tokens(text: string): string[] | undefined {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const m = TOKEN.exec(text);
    if (!m) return undefined;
    if (!/^\s|^#/.test(m[0])) out.push(m[0]);
  }
  return out;
}

/** True when the rules file `text` only forbids or prompts (every statement a literal `prefix_rule` with such a decision); false when it may allow, or is not read as such. */
export function codexRulesOnlyRestrict(text: string): boolean {
  const t = tokens(text);
  if (!t) return false;
  let i = 0;
  const take = (want?: string): string | undefined => (want === undefined || t[i] === want ? t[i++] : undefined);
  const isString = (s: string | undefined) => s !== undefined && /^["']/.test(s);
  const value = (): boolean => {
    if (isString(t[i])) return (i++, true);
    if (!take("[")) return false;
    while (t[i] !== "]") {
      if (!value()) return false;
      if (t[i] !== "]" && !take(",")) return false;
    }
    return (i++, true);
  };
  while (i < t.length) {
    if (!take("prefix_rule") || !take("(")) return false;
    const seen = new Set<string>();
    let decision: string | undefined;
    while (t[i] !== ")") {
      const name = t[i++];
      if (!name || !ARGUMENTS.has(name) || seen.has(name) || !take("=")) return false;
      seen.add(name);
      if (name === "decision") decision = isString(t[i]) ? t[i]!.slice(1, -1) : undefined;
      if (!value()) return false;
      if (t[i] !== ")" && !take(",")) return false;
    }
    i++;
    if (!decision || !RESTRICTING.has(decision)) return false;
  }
  return true;
}
