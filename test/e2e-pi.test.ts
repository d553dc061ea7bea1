/**
 * hookbox inside the real agent: pi 0.73.1 (installed by scripts/install-pi.sh), run headless in a
 * network namespace with only loopback, against a scripted fake model whose first turn asks the
 * bash tool to `rm -rf` a folder of the project.
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/host.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { installPi, piAgent, piUnavailable, piWorld, runAgent, runPi, victim, type PiWorld } from "./support/pi-agent.js";

const unavailable = piUnavailable();
if (unavailable) console.log(`test/e2e-pi.test.ts skipped: ${unavailable}`);

let cli: string;

const sandbox = sandboxAvailability();
if (!sandbox.ok) console.log(`test/e2e-pi.test.ts: the untrusted (sandbox) tests skipped: ${sandbox.reason}`);

const SECRETS = { env: "ENV-SECRET-4d1c", ssh: "SSH-SECRET-9e7a", dotenv: "DOTENV-SECRET-2b8f", apiKey: "MODELS-JSON-KEY-6c3d" };

/** The secrets of the agent's user: an env var set for pi, ~/.ssh/id_rsa in the fake HOME, the project's .env, models.json's key. */
function plantSecrets(world: PiWorld) {
  mkdirSync(join(world.home, ".ssh"), { recursive: true });
  writeFileSync(join(world.home, ".ssh", "id_rsa"), SECRETS.ssh);
  writeFileSync(join(world.project, ".env"), `TOKEN=${SECRETS.dotenv}\n`);
  return { env: { HOOKBOX_E2E_SECRET: SECRETS.env }, apiKey: SECRETS.apiKey };
}

function report(toolResult: string): Record<string, string> {
  const match = /REPORT (\{.*\})/.exec(toolResult);
  if (!match) throw new Error(`no report reached the model: ${toolResult}`);
  return JSON.parse(match[1]) as Record<string, string>;
}

const EXTENSIONS = join(ROOT, "fixtures", "extensions");

/** The one-line file a user passes with -e: `export default isolate([...], options)`. */
function isolateFile(world: PiWorld, modules: string[], options: Record<string, unknown> = {}): string {
  const file = join(world.project, "isolated.ts");
  const paths = modules.map((m) => join(EXTENSIONS, m));
  writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify(paths)}, ${JSON.stringify(options)});\n`);
  return file;
}

describe.skipIf(unavailable !== undefined)("hookbox inside pi 0.73.1", { timeout: 120_000 }, () => {
  beforeAll(() => { cli = installPi(); }, 300_000);

  it("control: without hookbox the model's rm -rf really deletes the folder", () => {
    const world = piWorld();
    const dir = victim(world);
    const run = runPi(cli, world, { command: `rm -rf ${dir}` });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(run.requests).toHaveLength(2);
    expect(run.outside).toBe("ENETUNREACH");
    expect(run.stdout).toContain("TOOL RESULT:");
  });

  it("an isolated guard blocks the model's rm -rf: the folder survives and the model receives the reason", () => {
    const world = piWorld();
    const dir = victim(world);
    const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [isolateFile(world, ["blocks-rm-rf.ts"])] });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(run.toolResult).toContain(`guard refused: rm -rf ${dir}`);
    expect(run.stdout).toContain(`TOOL RESULT: guard refused: rm -rf ${dir}`);
  });

  it("the config-file form: a one-line entry reading isolated.json beside it (isolateConfig) blocks the model's rm -rf; the modules resolve against the JSON's folder", () => {
    const world = piWorld();
    const dir = victim(world);
    const folder = join(world.project, ".pi", "hookbox");
    mkdirSync(folder, { recursive: true });
    copyFileSync(join(EXTENSIONS, "blocks-rm-rf.ts"), join(folder, "guard.ts"));
    writeFileSync(join(folder, "isolated.json"), JSON.stringify({ modules: ["./guard.ts"], isolation: "process" }));
    const entry = join(folder, "isolated.ts");
    writeFileSync(entry, `import { isolateConfig } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolateConfig(new URL("./isolated.json", import.meta.url));\n`);
    const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [entry] });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("Extension error");
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(run.toolResult).toBe(`guard refused: rm -rf ${dir}`);
  });

  it("relative paths resolve against the file calling isolate(): `pi -e ../isolated.ts` from a subfolder loads the guard beside isolated.ts and blocks rm -rf", () => {
    const world = piWorld();
    const dir = victim(world);
    copyFileSync(join(EXTENSIONS, "blocks-rm-rf.ts"), join(world.project, "guard.ts"));
    writeFileSync(join(world.project, "isolated.ts"), `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(["./guard.ts"]);\n`);
    const sub = join(world.project, "sub");
    mkdirSync(sub);
    const run = runPi(cli, { ...world, project: sub }, { command: `rm -rf ${dir}`, extensions: ["../isolated.ts"] });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("Extension error");
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(run.toolResult).toBe(`guard refused: rm -rf ${dir}`);
  });

  it("control: resolved against pi's working folder (base: process.cwd()) the same path is not found there, and every call is blocked", () => {
    const world = piWorld();
    const dir = victim(world);
    copyFileSync(join(EXTENSIONS, "blocks-rm-rf.ts"), join(world.project, "guard.ts"));
    writeFileSync(join(world.project, "isolated.ts"), `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(["./guard.ts"], { base: process.cwd() });\n`);
    const sub = join(world.project, "sub");
    mkdirSync(sub);
    const run = runPi(cli, { ...world, project: sub }, { command: `rm -rf ${dir}`, extensions: ["../isolated.ts"] });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`${join(sub, "guard.ts")} did not load (load_failed): Failed to load hook: file not found`);
    expect(run.toolResult).toContain(`isolated extension ${join(sub, "guard.ts")} (load_failed) did not load (fail closed)`);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
  });

  it("a typo in isolate()'s options fails closed as in isolateConfig's file: pi goes on (exit 0), the error names isolate and the option, the call is blocked", () => {
    const world = piWorld();
    const dir = victim(world);
    const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [isolateFile(world, ["blocks-rm-rf.ts"], { isolaton: "process" })] });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`hookbox: isolate did not load (load_failed): isolate: unknown option "isolaton"; did you mean "isolation"?`);
    expect(run.toolResult).toBe("hookbox: blocked because isolated extension isolate (load_failed) did not load (fail closed)");
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
  });

  it("a policy refusal is visible to the person running pi: a guard's pi.exec(\"git\") under the default policy is shown once on pi's stderr, naming exec.allow", () => {
    const world = piWorld();
    const dir = victim(world);
    const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [isolateFile(world, ["asks-git-in-tool-call.ts"])] });
    expect(run.code, run.stderr).toBe(0);
    expect(run.toolResult).toMatch(/^guard could not ask git: pi\.exec is not allowed/);
    const shown = run.stderr.split("\n").filter((l) => l.includes(`pi.exec("git") refused by its policy`));
    expect(shown).toHaveLength(1);
    expect(shown[0]).toContain(`The field that grants it: exec.allow (policy: { exec: { allow: ["git"] } } in isolate's options).`);
  });

  it("control: granted exec.allow [\"git\"], the guard runs git and pi's stderr shows no refusal", () => {
    const world = piWorld();
    const dir = victim(world);
    const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [isolateFile(world, ["asks-git-in-tool-call.ts"], { policy: { exec: { allow: ["git"] } } })] });
    expect(run.code, run.stderr).toBe(0);
    expect(run.toolResult).toBe("guard asked git");
    expect(run.stderr).not.toContain("refused by its policy");
  });

  /** pi with its own discovery on (no --no-extensions): it loads every module of the project's .pi/extensions/. */
  const discovering = () => ({ ...piAgent(cli), quiet: piAgent(cli).quiet.filter((f) => f !== "--no-extensions") });
  const importIsolate = `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};`;

  it("a guard placed beside isolated.ts in .pi/extensions/ (pi loads it itself, unisolated) is reported naming the folder, not loaded again, and every tool call is blocked", () => {
    const world = piWorld();
    const folder = join(world.project, ".pi", "extensions");
    mkdirSync(folder, { recursive: true });
    copyFileSync(join(EXTENSIONS, "blocks-rm-rf.ts"), join(folder, "guard.ts"));
    writeFileSync(join(folder, "isolated.ts"), `${importIsolate}\nexport default isolate(["./guard.ts"]);\n`);
    const run = runAgent(discovering(), world, { command: "ls" });
    expect(run.code, run.stderr).toBe(0);
    const guard = join(folder, "guard.ts");
    expect(run.stderr).toContain(`${guard} did not load (load_failed): Failed to load hook: pi also loads it by itself, in its own process: it sits in a folder pi loads every module of (.pi/extensions/)`);
    expect(run.toolResult).toBe(`hookbox: blocked because isolated extension ${guard} (load_failed) did not load (fail closed)`);
  });

  it("control: the guard in .pi/hookbox/ (where pi does not look), isolated.ts in .pi/extensions/: nothing is reported and the guard blocks rm -rf", () => {
    const world = piWorld();
    const dir = victim(world);
    const folder = join(world.project, ".pi", "extensions");
    mkdirSync(folder, { recursive: true });
    mkdirSync(join(world.project, ".pi", "hookbox"));
    copyFileSync(join(EXTENSIONS, "blocks-rm-rf.ts"), join(world.project, ".pi", "hookbox", "guard.ts"));
    writeFileSync(join(folder, "isolated.ts"), `${importIsolate}\nexport default isolate(["../hookbox/guard.ts"]);\n`);
    const run = runAgent(discovering(), world, { command: `rm -rf ${dir}` });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("pi also loads it");
    expect(run.stderr).not.toContain("Extension error");
    expect(run.toolResult).toBe(`guard refused: rm -rf ${dir}`);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
  });

  it.each([
    ["throws-from-timer.ts", "crashed"],
    ["exits-in-tool-call.ts", "crashed"],
    ["hangs-in-tool-call.ts", "timeout"],
    // the loop's deadline is far: it is ended as unresponsive, not timed out
    ["loops-in-tool-call.ts", "unresponsive", { deadlines: { tool_call: 20_000 }, unresponsiveMs: 1_000 }],
  ] as Array<[string, string, Record<string, unknown>?]>)("an isolated module that faults in tool_call (%s) is contained: pi finishes its prompt, exits 0, and the call is blocked (%s)", (module, code, own) => {
    const world = piWorld();
    const dir = victim(world);
    const options = own ?? { deadlines: { tool_call: 1_500 } };
    const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [isolateFile(world, [module], options)] });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(run.toolResult).toContain(`failed (${code})`);
    expect(run.stdout).toContain("TOOL RESULT: ");
    expect(run.stderr).toContain(`${code} in tool_call`);
  });

  it("control: the same timer throw in pi's own process ends pi", () => {
    const world = piWorld();
    const dir = victim(world);
    const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [join(EXTENSIONS, "throws-from-timer.ts")] });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("thrown from a timer");
  });

  it.skipIf(!sandbox.ok)("a hostile isolated extension under policy untrusted reads no secret (env, ~/.ssh, the project's .env, models.json's key) and reaches no network", () => {
    const world = piWorld();
    const dir = victim(world);
    const planted = plantSecrets(world);
    const run = runPi(cli, world, { command: `rm -rf ${dir}`, ...planted, extensions: [isolateFile(world, ["reads-secrets.ts"], { policy: "untrusted" })] });
    expect(run.code, run.stderr).toBe(0);
    const seen = report(run.toolResult);
    // it ran and reported each attempt …
    expect(Object.keys(seen).sort()).toEqual(["apiKey", "dotenv", "dotenvByCwd", "env", "network", "ssh", "sshByHome"]);
    expect(seen.network).toMatch(/^refused \(/);
    expect(run.requests.filter((r) => r.url === "/exfil")).toEqual([]);
    // … and no secret reached it
    for (const secret of Object.values(SECRETS)) expect(run.toolResult).not.toContain(secret);
    expect(seen.env).toBe("saw null");
    for (const key of ["ssh", "sshByHome", "dotenv", "dotenvByCwd"]) expect(seen[key]).toMatch(/^refused \(/);
    expect(seen.apiKey).toMatch(/^refused \(.*getApiKeyForProvider/);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
  });

  it("control: the same hostile extension in pi's own process reads every secret and sends them to the loopback", () => {
    const world = piWorld();
    victim(world);
    const planted = plantSecrets(world);
    const run = runPi(cli, world, { command: "true", ...planted, extensions: [join(EXTENSIONS, "reads-secrets.ts")] });
    expect(run.code, run.stderr).toBe(0);
    for (const secret of Object.values(SECRETS)) expect(run.toolResult).toContain(secret);
    expect(report(run.toolResult).network).toBe("sent (200)");
    const sent = run.requests.filter((r) => r.url === "/exfil");
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0].body)).toContain(SECRETS.ssh);
  });

  // throws-at-load.ts registers nothing, so a first start mirrors it from its source: its failure is known when it arrives
  // (at the tool call at the latest, which waits for every module), and the start after waits for it (reported at pi's start).
  it("a module that does not load is reported through pi's error path with its code, when it arrives at a first start and at pi's start after; the others load, and every tool call is blocked naming it", () => {
    const world = piWorld();
    const dir = victim(world);
    const file = isolateFile(world, ["throws-at-load.ts", "blocks-rm-rf.ts"], { transformCacheDir: join(world.home, "transforms") });
    const failed = join(EXTENSIONS, "throws-at-load.ts");
    for (const [start, report] of [
      ["first start (mirrored)", `Extension error (${failed}): hookbox: ${failed}: load_failed in load: Failed to load hook: broken at load`],
      ["next start (waited for)", `Extension error (${file}): hookbox: ${failed} did not load (load_failed): Failed to load hook: broken at load; every tool call is blocked (fail closed)`],
    ]) {
      const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [file] });
      expect(run.code, `${start}: ${run.stderr}`).toBe(0);
      expect(run.stderr, start).toContain(report);
      expect(run.toolResult, start).toContain(`blocked because isolated extension ${failed} (load_failed) did not load (fail closed)`);
      expect(existsSync(join(dir, "keep.txt")), start).toBe(true);
    }
  });

  it("optional: a module that does not load is still reported but no longer blocks; the others load and run", () => {
    const world = piWorld();
    const dir = victim(world);
    const failed = join(EXTENSIONS, "throws-at-load.ts");
    const file = isolateFile(world, ["throws-at-load.ts", "blocks-rm-rf.ts"], { optional: [failed], transformCacheDir: join(world.home, "transforms") });
    for (const [start, report] of [
      ["first start (mirrored)", `Extension error (${failed}): hookbox: ${failed}: load_failed in load: Failed to load hook: broken at load`],
      ["next start (waited for)", `Extension error (${file}): hookbox: ${failed} did not load (load_failed): Failed to load hook: broken at load (optional: it blocks no tool call)`],
    ]) {
      const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [file] });
      expect(run.code, `${start}: ${run.stderr}`).toBe(0);
      expect(run.stderr, start).toContain(report);
      expect(run.stderr, start).not.toContain("fail closed");
      expect(run.toolResult, start).toBe(`guard refused: rm -rf ${dir}`);
      expect(existsSync(join(dir, "keep.txt")), start).toBe(true);
    }
  });

  it("a member the adapter cannot carry is refused at load, naming the member, the module and why; tool calls are blocked", () => {
    const world = piWorld();
    const dir = victim(world);
    const file = isolateFile(world, ["registers-provider.ts"]);
    const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [file] });
    expect(run.code, run.stderr).toBe(0);
    const module = join(EXTENSIONS, "registers-provider.ts");
    expect(run.stderr).toContain(`hookbox: ${module} did not load (load_failed): Failed to load hook: pi.registerProvider is refused by hookbox/extension: provider streams cannot cross yet`);
    expect(run.toolResult).toContain(`blocked because isolated extension ${module} (load_failed) did not load`);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
  });

  it("an isolated tool that never returns is ended at its deadline: pi finishes its prompt, and the model reads the error with its code", () => {
    const world = piWorld();
    const file = join(world.project, "isolated.ts");
    writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify([join(ROOT, "fixtures", "hostile", "hangs-in-tool-execute.ts")])}, { deadlines: { tool: 1500 } });\n`);
    const run = runPi(cli, world, { command: "", tool: { name: "hangs", arguments: {} }, extensions: [file] });
    expect(run.code, run.stderr).toBe(0);
    expect(run.toolResult).toContain(`failed (timeout) in tool hangs`);
    expect(run.stdout).toContain("TOOL RESULT: hookbox: ");
    expect(run.stderr).toContain("timeout in tool hangs");
  });

  it("a tool an isolated extension registers runs isolated (not on pi's main thread), reads the flag pi was given, and its result reaches the model", () => {
    const world = piWorld();
    const file = isolateFile(world, ["registers-tools-and-commands.ts"]);
    const run = runPi(cli, world, { command: "", tool: { name: "where_am_i", arguments: { marker: "e2e" } }, extensions: [file], args: ["--where-flag", "from-cli"] });
    expect(run.code, run.stderr).toBe(0);
    // the model was offered the tool, with its schema …
    const first = run.requests.find((r) => r.url.endsWith("/chat/completions"))?.body as { tools?: Array<{ function: { name: string } }> } | undefined;
    expect((first?.tools ?? []).map((t) => t.function.name)).toContain("where_am_i");
    // … and got what the isolated execute returned: run in a worker thread of pi, not its main thread
    expect(run.toolResult).toMatch(new RegExp(`isolated tool call_1: marker=e2e main=false pid=\\d+ cwd=${world.project} flag=from-cli`));
    expect(run.stdout).toContain("TOOL RESULT: isolated tool call_1: marker=e2e main=false");
    // control: the same extension loaded by pi itself runs its tool on pi's main thread
    const own = runPi(cli, piWorld(), { command: "", tool: { name: "where_am_i", arguments: { marker: "e2e" } }, extensions: [join(EXTENSIONS, "registers-tools-and-commands.ts")] });
    expect(own.code, own.stderr).toBe(0);
    expect(own.toolResult).toContain("marker=e2e main=true");
  });
});
