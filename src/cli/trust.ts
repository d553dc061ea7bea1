/**
 * `hookbox trust <project>`: list the project's modules an agent would run (pi's `.pi/extensions/`
 * and its settings' extensions and packages, found with pi's own rules; the project's hook folders),
 * each with its origin, the files it could load and its hash, and approve exactly that on
 * confirmation (`--yes` for scripts), or `--revoke` every approval of the project. Approvals live
 * in the user's config folder (src/approval/store.ts), never in the project.
 */
import { statSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { join, relative, resolve } from "node:path";
import { below } from "../gates/inside.js";
import { ApprovalStore, ApprovalStoreError, fingerprint, FingerprintError, PinReader, projectKey, type Fingerprint } from "../approval/store.js";
import { discoverHooks, isModulePath } from "../discovery/index.js";
import { extensionsIn, piModules } from "../discovery/agents.js";
import { presets, type PolicyName } from "../policy/policy.js";
import { commandHookPins } from "../approval/command-hook.js";
import { hookKey } from "../approval/keys.js";
import { CLAUDE_CODE } from "../claude/dialect.js";
import { powerKey } from "../approval/keys.js";
import { powerItemFingerprint, powerItemScope } from "../approval/power-item.js";
import { POWER_ROWS } from "./power-items.js";
import { NeedsStore } from "../approval/needs.js";
import { proposeModuleGrants } from "../policy/module-proposals.js";
import { reviewMcpServers, type Reviewed } from "./trust-claude.js";
import { proposeGrants } from "../claude/propose.js";
import { covers, grantCommand, GrantError, moduleCanTake, parseGrant } from "../policy/grants.js";
import { readClaudeSettings } from "../claude/settings.js";
import { GEMINI, readGeminiSettings } from "../agents/gemini.js";
import { CODEX, codexProjectDirs, readCodexLayer } from "../agents/codex.js";
import { opencodeProjectPlugins } from "../opencode/discovery.js";
import { OPENCODE_PROJECT_POLICY } from "../opencode/plan.js";
import type { Output } from "./render.js";
import { EXIT, UsageError, command, parseFlags, type Flags } from "./usage.js";

const TRUST_FLAGS = {
  yes: { type: "boolean", help: "approve without asking (for scripts)" },
  revoke: { type: "boolean", help: "remove every approval of the project" },
  policy: { type: "string", arg: "<preset>", help: "the policy pi's and the hook folders' modules are approved to run under (default \"untrusted\"); refused for Claude Code hooks, which take --grant" },
  grant: { type: "string", multiple: true, arg: "<grant>", help: "give a grant (write:<folder>, write:tool-target, exec:<program>, network:<host>[:<port>], env:<NAME>, effects:annotate, effects:continue) to each Claude Code hook and pi module it was proposed for, or when none was to every one that can take it; \"proposed\": each the grants proposed for it; repeatable" },
  "agent-dir": { type: "string", arg: "<dir>", help: "pi's agent folder (default: PI_CODING_AGENT_DIR, else ~/.pi/agent)" },
  approvals: { type: "string", arg: "<dir>", help: "the approvals folder (default: as above)" },
  json: { type: "boolean", help: "print one JSON document instead of text" },
} as const satisfies Flags;

export const TRUST = command("trust", {
  usage: "Usage: hookbox trust <project> [--yes | --revoke] [--policy <preset>] [--grant <grant>…] [--json]",
  about: `List the modules of the project that an agent would run by itself: pi's (.pi/extensions/, and the
extensions and packages the project's .pi/settings.json names, found with pi's own rules),
oh-my-pi's .omp/extensions/, the project's hook folders (.xcsh/hooks, .claude/hooks) and the command
hooks of Claude Code's .claude/settings.json and .claude/settings.local.json (and its .mcp.json's MCP
servers), of Codex CLI's .codex/ and of Gemini CLI's
.gemini/settings.json (with the files they name; they run under "untrusted" in hookbox claude,
hookbox codex and hookbox gemini), and opencode's plugin files (.opencode/plugin(s)/ and those its
config files name; "untrusted" in hookbox opencode); and, one item per file, what each of these
agents reads of the project's files that runs a command or skips a question (settings keys with
their values, Gemini CLI's .env files, Codex CLI's rules files, skills with inline shell). Each is shown with its origin, every file it
could load and its hash. Then approve exactly that: hookbox/extension's isolateDiscovered() and
discoverAndLoadHooks load a project's module only as it was approved; a changed or new file, a
moved project or another policy needs approval again. Approvals are kept in
$XDG_CONFIG_HOME/hookbox (else ~/.config/hookbox), never in the project.`,
  sections: [{ title: "Options:", flags: TRUST_FLAGS }],
  tail: `Without --yes, it asks on a terminal and refuses elsewhere. Exit codes: 0 approved (or nothing to
approve, or revoked), 1 not approved, 2 a usage error.
`,
});
export const TRUST_HELP = TRUST.help;

/** Run `trust`; returns the exit code. */
export async function trust(args: string[], out: Output, _signal?: AbortSignal, err: Output = out): Promise<number> {
  const parsed = parseFlags(args, TRUST);
  const { values, positionals } = parsed;
  if (values.help) { out.write(TRUST_HELP); return EXIT.ok; }
  if (positionals.length !== 1) throw new UsageError("pass exactly one project folder (hookbox trust <project>)");
  const project = resolve(positionals[0]!);
  if (!statSync(project, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${project} is not a folder: pass the project's folder`);
  const policy = (values.policy ?? "untrusted") as PolicyName;
  if (!Object.hasOwn(presets, policy)) throw new UsageError(`--policy must be one of ${Object.keys(presets).map((p) => `"${p}"`).join(", ")}, got "${policy}"`);
  const store = new ApprovalStore(values.approvals ? { dir: values.approvals } : {});
  try {
    if (values.revoke) {
      const had = store.revoke(project);
      out.write(had ? `revoked every approval of ${projectKey(project)}\n` : `${projectKey(project)} had no approval\n`);
      return EXIT.ok;
    }
    let reviewed: Reviewed[];
    try {
      reviewed = await projectModules(project, policy, values["agent-dir"], (warning) => err.write(`hookbox trust: ${warning}\n`), new NeedsStore(values.approvals ? { dir: values.approvals } : {}));
    } catch (e) {
      if (!(e instanceof FingerprintError)) throw e;
      err.write(`hookbox trust: a module cannot be pinned, so it cannot be approved: ${e.message}\n`);
      return EXIT.hookErrors;
    }
    giveGrants(project, reviewed, values.grant ?? [], store);
    const claudePolicy = reviewed.some((r) => r.claude) && policy !== "untrusted";
    if (claudePolicy) err.write(`hookbox trust: --policy "${policy}" is refused for Claude Code hooks: they run in the sandbox under "untrusted", with the grants listed (give more with --grant)\n`);
    // Why apart: a hook whose grants only narrowed needs no new approval; one whose grants widened does.
    const verdicts = await Promise.all(reviewed.map((r) => (r.pinned
      ? store.checkPinned(project, { path: r.key, policy: "untrusted", pinned: r.pinned })
      : store.check(project, { path: r.key, policy }))));
    const pending = reviewed.filter((r, i) => verdicts[i] !== undefined || (r.grants && !covers(r.grants.approved, r.grants.given)));
    const narrowed = reviewed.filter((r) => r.grants && !pending.includes(r) && r.grants.given.length !== r.grants.approved.length);
    // A hook that cannot be approved as it stands is listed with why, and the rest are approved without it.
    const approvable = reviewed.filter((r) => r.fingerprint);
    const refused = reviewed.length - approvable.length;
    const done = refused > 0 ? EXIT.hookErrors : EXIT.ok;
    if (values.json) out.write(`${JSON.stringify({ project: projectKey(project), policy, modules: reviewed.map(asJson), pending: pending.length }, null, 2)}\n`);
    else out.write(describe(project, policy, reviewed, pending));
    if (refused > 0) err.write(`hookbox trust: ${refused} of the project's modules cannot be approved as ${refused === 1 ? "it stands" : "they stand"} (said above): ${refused === 1 ? "it stays" : "they stay"} blocked\n`);
    const grantsOf = () => Object.fromEntries(approvable.flatMap((r) => (r.grants ? [[r.key, r.grants.given]] : [])));
    const fingerprints = () => approvable.map((r) => r.fingerprint!);
    const waiting = pending.filter((r) => r.fingerprint);
    if (approvable.length > 0 && waiting.length === 0 && narrowed.length > 0) {
      store.approve(project, fingerprints(), grantsOf());
      if (!values.json) out.write(`narrowed the grants of ${narrowed.length} hook${narrowed.length === 1 ? "" : "s"} (no new approval needed)\n`);
      return done;
    }
    if (waiting.length === 0) return done;
    if (!values.yes && !(await confirm(`Approve ${approvable.length === 1 ? "this module" : `these ${approvable.length} modules`} to run under "${policy}" in ${projectKey(project)}? [y/N] `))) {
      err.write(`hookbox trust: not approved${process.stdin.isTTY ? "" : " (not a terminal: pass --yes to approve)"}\n`);
      return EXIT.hookErrors;
    }
    store.approve(project, fingerprints(), grantsOf());
    if (!values.json) out.write(`approved ${approvable.length} module${approvable.length === 1 ? "" : "s"} of ${projectKey(project)} (kept in ${store.file})\n`);
    return done;
  } catch (e) {
    if (!(e instanceof ApprovalStoreError)) throw e;
    err.write(`hookbox trust: ${e.message}; fix or remove that file\n`);
    return EXIT.hookErrors;
  }
}

/** The project's modules: pi's project-scope extensions, then the project-level modules of the hook folders, once each. */
async function projectModules(project: string, policy: PolicyName, agentDir: string | undefined, warn: (warning: string) => void, needs: NeedsStore): Promise<Reviewed[]> {
  const found: Array<{ path: string; origin: string }> = [];
  const pi = await piModules(project, { agentDir });
  for (const warning of pi.warnings) warn(warning);
  for (const m of pi.modules) if (m.scope === "project") found.push({ path: m.path, origin: `pi (${m.source === "auto" ? ".pi/extensions" : m.source === "local" ? ".pi/settings.json" : `package ${m.source}`})` });
  // oh-my-pi's own discovery runs on Bun inside the agent only: here its project folder, by the folder rule.
  for (const path of extensionsIn(join(project, ".omp", "extensions"))) found.push({ path, origin: "oh-my-pi (.omp/extensions)" });
  const hooks = await discoverHooks(project);
  for (const item of hooks.items) if (item.level === "project") found.push({ path: item.path, origin: `hooks (${item.providerName}${isModulePath(item.path) ? "" : ", shell"})` });
  const seen = new Set<string>();
  // pi's and oh-my-pi's modules (isolateDiscovered) take grants through their policy; the hook folders' do not.
  const modules: Reviewed[] = found.filter((f) => !seen.has(f.path) && seen.add(f.path)).map((f) => ({
    key: f.path, origin: f.origin, fingerprint: fingerprint(f.path, policy), ...(f.origin.startsWith("hooks (") ? {} : { grants: {
      // What reading the module finds, and what the sandbox refused it at run time (a grant, not a refusal no grant allows).
      proposed: [...new Set([...proposeModuleGrants(projectKey(project), f.path), ...needs.seen(project, f.path).filter((g) => !g.startsWith("refused:"))])].sort(),
      given: [], approved: [], module: true,
    } }),
  }));
  // Claude Code's hooks of the project: they run under "untrusted" whatever --policy says (hookbox claude).
  const reader = new PinReader();
  for (const name of ["settings.json", "settings.local.json"]) {
    const settings = readClaudeSettings(join(project, ".claude", name), name === "settings.json" ? "project" : "local");
    for (const problem of settings.problems) warn(problem);
    for (const hook of settings.hooks) {
      const pinned = () => CLAUDE_CODE.fingerprint(project, hook, reader);
      const key = hookKey(hook);
      const origin = `Claude Code (.claude/${name}, ${hook.event}${hook.matcher ? ` ${hook.matcher}` : ""}: ${hook.command})`;
      const { folders, notes } = commandHookPins(project, hook, CLAUDE_CODE.projectDirVars);
      const scope = `its command, event, matcher and timeout; the files below${folders.length > 0 ? `, with ${folders.map((f) => relative(projectKey(project), f)).join(", ")} whole` : ""}; a link by its text and by the content it leads to`;
      let fp: Fingerprint;
      try {
        fp = await pinned();
      } catch (e) {
        if (!(e instanceof FingerprintError)) throw e;
        modules.push({ key, origin, refusal: e.message, pinned, claude: true });
        continue;
      }
      const proposed = [...new Set([...proposeGrants(project, hook), ...needs.seen(project, key).filter((g) => !g.startsWith("refused:"))])].sort();
      modules.push({ key, origin, fingerprint: fp, scope, notes, pinned, claude: true, grants: { proposed, given: [], approved: [], module: false } });
    }
  }
  // Claude Code's MCP servers of the project (.mcp.json): a stdio one runs in the sandbox with its grants in hookbox claude.
  modules.push(...(await reviewMcpServers(project, reader, warn)));
  // Gemini CLI's hooks of the project (.gemini/settings.json): they run under "untrusted" in hookbox gemini.
  const geminiSettings = readGeminiSettings(join(project, ".gemini", "settings.json"), "project");
  for (const problem of geminiSettings.problems) warn(problem);
  for (const hook of geminiSettings.hooks) {
    const pinned = () => GEMINI.fingerprint(project, hook, reader);
    await reviewAgentHook(modules, hookKey(hook), `Gemini CLI (.gemini/settings.json, ${hook.event}${hook.matcher ? ` ${hook.matcher}` : ""}: ${hook.command})`, pinned);
  }
  // Codex CLI's hooks of the project (.codex/hooks.json, .codex/config.toml): they run under "untrusted" in hookbox codex.
  for (const dir of codexProjectDirs(project)) {
    const layer = readCodexLayer(dir, "project");
    for (const problem of layer.problems) warn(problem);
    for (const hook of layer.hooks) {
      const pinned = () => CODEX.fingerprint(project, hook, reader);
      await reviewAgentHook(modules, hookKey(hook), `Codex CLI (${relative(project, hook.file)}, ${hook.event}${hook.matcher ? ` ${hook.matcher}` : ""}: ${hook.command})`, pinned);
    }
  }
  // What each agent reads of the project's files beyond its hooks that runs a command or widens what it may do: one item per file.
  for (const row of Object.values(POWER_ROWS)) {
    for (const item of row.items(project)) {
      const pinned = () => powerItemFingerprint(project, item, reader);
      const base = { key: powerKey(item.file), origin: item.origin, pinned, shows: item.shows };
      try {
        modules.push({ ...base, fingerprint: await pinned(), scope: powerItemScope(project, item) });
      } catch (e) {
        if (!(e instanceof FingerprintError)) throw e;
        modules.push({ ...base, refusal: e.message });
      }
    }
  }
  // opencode's plugins of the project: they run under "untrusted" whatever --policy says (hookbox opencode).
  for (const p of opencodeProjectPlugins(project)) {
    const pinned = async () => fingerprint(p.path, OPENCODE_PROJECT_POLICY);
    modules.push({ key: p.path, origin: `opencode (${p.from})`, fingerprint: await pinned(), pinned });
  }
  return modules;
}

/** Codex CLI's or Gemini CLI's hook as reviewed: its fingerprint, or why its command cannot be approved as it stands. */
async function reviewAgentHook(modules: Reviewed[], key: string, origin: string, pinned: () => Promise<Fingerprint>): Promise<void> {
  try {
    modules.push({ key, origin, fingerprint: await pinned(), pinned });
  } catch (e) {
    if (!(e instanceof FingerprintError)) throw e;
    modules.push({ key, origin, refusal: e.message, pinned });
  }
}

/**
 * The grants each Claude Code hook is given by `asked` (`--grant`): `proposed`, each hook its own
 * proposals; a grant, each hook it was proposed for, or every hook when none was. What its
 * approval carries now is kept beside, to tell widening from narrowing.
 */
function giveGrants(project: string, reviewed: Reviewed[], asked: readonly string[], store: ApprovalStore): void {
  let texts: string[];
  try {
    texts = asked.filter((g) => g !== "proposed").map((g) => parseGrant(g, projectKey(project)).text);
  } catch (e) {
    if (e instanceof GrantError) throw new UsageError(e.message);
    throw e;
  }
  const hooks = reviewed.filter((r) => r.grants);
  if (texts.length > 0 && hooks.length === 0) throw new UsageError("--grant gives grants to the project's Claude Code hooks and pi's and oh-my-pi's modules, and it has none");
  for (const r of hooks) {
    const c = r.grants!;
    const mine = texts.filter((g) => (c.proposed.includes(g) || !hooks.some((h) => h.grants!.proposed.includes(g))) && (!c.module || moduleCanTake(parseGrant(g).grant)));
    c.given = [...new Set([...(asked.includes("proposed") ? c.proposed : []), ...mine])].sort();
    c.approved = store.grants(project, r.key);
  }
}

function asJson(r: Reviewed) {
  if (!r.fingerprint) return { path: r.key, origin: r.origin, cannotApprove: r.refusal };
  return {
    path: r.key, origin: r.origin, policy: r.claude ? "untrusted" : r.fingerprint.policyName, sha256: r.fingerprint.digest,
    ...(r.shows ? { gives: r.shows } : {}), ...(r.scope ? { pins: r.scope } : {}), ...(r.notes?.length ? { notes: r.notes } : {}), files: r.fingerprint.files,
    ...(r.grants ? { grants: r.grants.given, proposed: r.grants.proposed } : {}),
  };
}

function describe(project: string, policy: string, reviewed: Reviewed[], pending: Reviewed[]): string {
  const key = projectKey(project);
  if (reviewed.length === 0) return `${key}: no module of the project would run (nothing to approve)\n`;
  const lines = [`${key}: ${reviewed.length} module${reviewed.length === 1 ? "" : "s"} of the project would run, under "${policy}":`];
  const short = (p: string) => below(key, p) || p;
  for (const r of reviewed) {
    if (!r.fingerprint) {
      lines.push("", `  ${short(r.key)}  [cannot be approved]`, `    origin: ${r.origin}`, `    why: ${r.refusal}`);
      continue;
    }
    const state = pending.includes(r) ? "not approved" : "approved";
    lines.push("", `  ${short(r.key)}  [${state}]`, `    origin: ${r.origin}`, ...(r.shows ?? []).map((g) => `    gives: ${g}`), ...(r.scope ? [`    pins: ${r.scope}`] : []), ...(r.notes ?? []).map((n) => `    note: ${n}`));
    if (r.claude) lines.push(`    runs: in the sandbox under "untrusted"${r.grants!.given.length ? `, with ${r.grants!.given.join(", ")}` : ", with no grant"}`);
    else if (r.grants?.given.length) lines.push(`    grants: ${r.grants.given.join(", ")}`);
    const more = r.grants?.proposed.filter((g) => !r.grants!.given.includes(g)) ?? [];
    if (more.length) lines.push(`    proposed: ${more.join(", ")} (${grantCommand(key, [...r.grants!.given, ...more])}, or --grant proposed)`);
    lines.push(`    sha256: ${r.fingerprint.digest}`, "    files:");
    for (const [file, hash] of Object.entries(r.fingerprint.files)) {
      const [named, real] = file.split(" -> ");
      lines.push(`      ${hash.length === 64 ? hash.slice(0, 12) : hash}  ${short(named!)}${real ? ` -> ${short(real)}` : ""}`);
    }
  }
  lines.push("", pending.length === 0 ? "every module is approved as it is" : `${pending.length} not approved as they are now`);
  return `${lines.join("\n")}\n`;
}

/** Ask on a terminal; anywhere else the answer is no. */
async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
