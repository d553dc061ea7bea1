/**
 * Grants: what a person gives one approved project hook beyond the sandbox's defaults, by name,
 * kept in its approval (src/approval/store.ts) and shown at `hookbox trust`. Each is a closed form,
 * parsed here once; the sandbox turns them into binds and variables (src/claude/granted.ts), the
 * answer rules into effects (src/claude/output.ts). docs/approvals.md has the table.
 *
 * - `write:<folder>`: a folder of the project, writable (made when missing). Never the project
 *   itself, nor a folder git or an agent runs code from (`.git`, `.claude`, `.pi`, …), at any depth;
 *   nor, inside it, one of those names (./planted.ts).
 * - `write:tool-target`: on PostToolUse, the file the tool call just wrote or edited, and only it.
 * - `exec:<program>`: the program as found on the user's PATH, bound read-only with its interpreter
 *   and libraries, its folder on the sandbox's PATH.
 * - `network:<host>[:<port>]`: that host and port (443 by default) through hookbox's proxy.
 * - `env:<NAME>`: the user's variable of that name.
 * - `effects:annotate`: the hook may add text the model reads, labelled with its name, bounded.
 * - `effects:continue`: a Stop hook may keep the agent going, a bounded number of times a session.
 */
import { lstatSync, mkdirSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { below } from "../gates/inside.js";
import { resolvePolicy, type Policy, type PolicyOption } from "./policy.js";
import { allows } from "../../worker/effects.mjs";
import { takenUp } from "./planted.js";

export type Grant =
  | { kind: "write"; folder: string }
  | { kind: "write-target" }
  | { kind: "exec"; program: string }
  | { kind: "network"; host: string; port: number }
  | { kind: "env"; name: string }
  | { kind: "effects"; effect: "annotate" | "continue" };

/** A grant that is not one of the forms, or that could never be safe (named). */
export class GrantError extends Error {
  override name = "GrantError";
}

/** Variables hookbox sets itself in the sandbox, or that change how its shell starts. */
const RESERVED_ENV = /^(PATH|HOME|TMPDIR|PWD|OLDPWD|CLAUDE_PROJECT_DIR|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|IFS|PS4|HOOKBOX_.*|BASH_FUNC_.*)$/;
/** How much text one hook may add to what the model reads per event (`effects:annotate`). */
export { ANNOTATE_MAX_CHARS } from "../../worker/effects.mjs";
/** How many times one Stop hook may keep the agent going in one session (`effects:continue`). */
export const CONTINUE_LIMIT = 3;

/** The grant of `text`, in its one spelling; throws `GrantError`. `project`: where a `write:` folder is (an absolute one must lie inside). */
export function parseGrant(text: string, project?: string): { grant: Grant; text: string } {
  const colon = text.indexOf(":");
  const kind = colon < 0 ? text : text.slice(0, colon);
  const value = colon < 0 ? "" : text.slice(colon + 1);
  const bad = (why: string): never => { throw new GrantError(`--grant ${text}: ${why}`); };
  switch (kind) {
    case "write": {
      if (value === "tool-target") return { grant: { kind: "write-target" }, text: "write:tool-target" };
      if (!value) bad("name a folder of the project (write:logs) or write:tool-target");
      if (isAbsolute(value) && !project) bad("an absolute folder needs the project to be known");
      // A relative folder is named from the project.
      const rel = (isAbsolute(value) ? below(project!, value) : below(".", value)) || bad("the folder must lie inside the project, and not be the project itself");
      const taken = takenUp(rel);
      if (taken) bad(`${taken} is where git or an agent runs code or reads instructions from: a hook that writes there could run code as you; never granted`);
      if (/[\0\n]/.test(rel)) bad("not a folder name");
      return { grant: { kind: "write", folder: rel }, text: `write:${rel}` };
    }
    case "exec":
      if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(value)) bad("name a program found on your PATH (exec:uv), without a folder");
      return { grant: { kind: "exec", program: value }, text: `exec:${value}` };
    case "network": {
      const m = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i.exec(value);
      const port = m?.[2] === undefined ? 443 : Number(m[2]);
      if (!m || port < 1 || port > 65535) bad("name a host and port (network:pypi.org or network:pypi.org:443); no wildcards");
      const host = m![1]!.toLowerCase();
      return { grant: { kind: "network", host, port }, text: `network:${host}:${port}` };
    }
    case "env":
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) bad("name one variable (env:NODE_ENV)");
      if (RESERVED_ENV.test(value)) bad(`${value} is set by hookbox in the sandbox, or changes how its shell starts`);
      return { grant: { kind: "env", name: value }, text: `env:${value}` };
    case "effects":
      if (value !== "annotate" && value !== "continue") bad('effects:annotate or effects:continue (a project\'s hook never gets "substitute")');
      return { grant: { kind: "effects", effect: value as "annotate" | "continue" }, text: `effects:${value}` };
    default:
      return bad("a grant is write:<folder>, write:tool-target, exec:<program>, network:<host>[:<port>], env:<NAME>, effects:annotate or effects:continue");
  }
}

/** Every grant of `texts`, parsed (the store keeps their one spelling; a malformed one throws). */
export function parseGrants(texts: readonly string[], project?: string): Grant[] {
  return texts.map((t) => parseGrant(t, project).grant);
}

/** Whether `approved` holds every grant of `asked`: narrowing needs no new approval, widening does. */
export function covers(approved: readonly string[], asked: readonly string[]): boolean {
  return asked.every((g) => approved.includes(g));
}

const quote = (s: string) => (/^[\w./@:+-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

/** The command that approves the project's hooks with `grants`, as a user types it. */
export function grantCommand(project: string, grants: readonly string[]): string {
  return ["npx hookbox trust", quote(project), ...[...new Set(grants)].map((g) => `--grant ${quote(g)}`)].join(" ");
}

/** The project folder a `write:` grant names, made when missing; throws when a part of it is a link or a file. */
export function grantedFolder(project: string, folder: string): string {
  let at = project;
  for (const part of folder.split(sep)) {
    at = join(at, part);
    const st = lstatSync(at, { throwIfNoEntry: false });
    if (!st) { mkdirSync(at); continue; }
    if (st.isSymbolicLink() || !st.isDirectory()) throw new GrantError(`${relative(project, at)} is not a folder of the project (a link or a file)`);
  }
  return at;
}

/** Whether a pi or oh-my-pi module can be given `grant` through its policy (the rest are Claude Code's: a tool's file, a Stop hook's `continue`). */
export function moduleCanTake(grant: Grant): boolean {
  return grant.kind !== "write-target" && !(grant.kind === "effects" && grant.effect !== "annotate");
}

/**
 * A project module's `policy` widened by its approval's grants (pi, oh-my-pi: src/extension/discovered.ts):
 * `write:<folder>` to `fsWrite`, `exec:<program>` to `exec.allow` (`pi.exec`), `network:` to
 * `network.allow`, `env:` to `env`, `effects:annotate` to `effects` (when below it). Throws
 * `GrantError` naming a grant a module cannot be given.
 */
export function withGrants(policy: PolicyOption, grants: readonly string[], project: string): PolicyOption {
  if (grants.length === 0) return policy;
  const base: Policy = resolvePolicy(policy);
  const out: Policy = { ...base, fsWrite: [...base.fsWrite], env: [...base.env], exec: { ...base.exec, allow: base.exec.allow === "*" ? "*" : [...base.exec.allow] }, network: { allow: [...base.network.allow] } };
  for (const [i, grant] of parseGrants(grants, project).entries()) {
    if (!moduleCanTake(grant)) throw new GrantError(`${grants[i]} is given to Claude Code hooks only, not to a pi module`);
    if (grant.kind === "effects" && !allows(out.effects, "annotate")) out.effects = "annotate";
    if (grant.kind === "write") out.fsWrite.push(grantedFolder(project, grant.folder));
    else if (grant.kind === "exec" && out.exec.allow !== "*") out.exec.allow.push(grant.program);
    else if (grant.kind === "network") out.network.allow.push(`${grant.host}:${grant.port}`);
    else if (grant.kind === "env") out.env.push(grant.name);
  }
  return out;
}
