/**
 * One opencode plugin in its own process (./child.mjs on Bun: the opencode binary with
 * BUN_BE_BUN=1): a project's inside hookbox's bubblewrap sandbox (no network, the project
 * read-only, an empty home, none of the user's variables), the user's as the user without
 * secret-looking variables. Every call has a deadline; a child that exits, is killed or breaks the
 * channel fails every pending and later call (`crashed`, `protocol_violation`), and opencode goes on.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import { Errors, HookFailure } from "../contract/errors.js";
import { terminalText } from "../gates/terminal-text.js";
import { sandboxLauncher, type SandboxSpec } from "../isolation/bubblewrap/bwrap.js";
import { SANDBOX_PATH, SYSTEM_READS } from "../isolation/bubblewrap/system-reads.js";
import { SECRET_NAME } from "../policy/policy.js";
import { childEnv } from "../../worker/child-env.mjs";

export interface UnitSpec {
  /** The plugin file, as the person reads it in errors. */
  path: string;
  name: string;
  sandboxed: boolean;
  /** The opencode binary (a Bun 1.3 with BUN_BE_BUN=1). */
  bun: string;
  child: string;
  project: string;
  /** More folders its sandbox reads (where the plugin file is seen from). */
  reads: string[];
  /** Where the plugin's stderr goes. */
  log: (line: string) => void;
}

/**
 * The memory bound of a plugin's sandbox: twice a command hook's (src/agents/sandbox.ts, 512 MiB).
 * Why: where no cgroup can be made the bound is RLIMIT_DATA per process, and Bun (the opencode
 * binary) reserves more than 512 MiB of private mappings as it starts: under 512 it dies before
 * running a line (SIGTRAP), under 1024 it runs (test/opencode-unit.test.ts). Under a cgroup a
 * plugin's process uses ~45 MiB.
 */
export const PLUGIN_SANDBOX_MEMORY_MB = 1024;
/** The longest line the channel reads: past it the child is ended (protocol_violation). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
const MAX_LOG_LINES = 200;

type Pending = { resolve: (v: unknown) => void; reject: (e: HookFailure) => void; timer: NodeJS.Timeout; hook: string };

export class OpencodeUnit {
  private child: ChildProcess;
  private pending = new Map<number, Pending>();
  private next = 1;
  private dead: HookFailure | undefined;
  private afterDeath?: () => unknown;
  private logged = 0;

  constructor(private spec: UnitSpec) {
    const argv = [spec.bun, spec.child];
    let command: string, args: string[], env: Record<string, string>;
    if (spec.sandboxed) {
      const sandbox: SandboxSpec = {
        readOnly: [...SYSTEM_READS, spec.project, ...spec.reads, dirname(realpathSync(spec.bun)), dirname(spec.child)],
        env: { PATH: SANDBOX_PATH, LANG: "C.UTF-8", HOME: process.env.HOME, BUN_BE_BUN: "1" },
        chdir: spec.project,
        memoryMb: PLUGIN_SANDBOX_MEMORY_MB,
      };
      const launcher = sandboxLauncher(sandbox);
      this.afterDeath = () => launcher.afterDeath?.();
      ({ command, args, env } = launcher.wrap([realpathSync(spec.bun), spec.child]));
    } else {
      command = argv[0]!;
      args = argv.slice(1);
      env = childEnv([...Object.entries(process.env).filter(([k]) => !SECRET_NAME.test(k) && !k.startsWith("HOOKBOX_OPENCODE")), ["BUN_BE_BUN", "1"]]);
    }
    this.child = spawn(command, args, { cwd: spec.project, env, stdio: ["pipe", "pipe", "pipe"] });
    this.read();
    this.child.on("error", (e) => this.die(Errors.crashed(spec.path, "load", e.message)));
    this.child.on("exit", (code, signal) => this.die(Errors.crashed(spec.path, this.current(), `its process ended (${signal ?? `exit code ${code}`})`)));
    this.child.stdin!.on("error", () => {});
    // Why: opencode exits when its work is done; a plugin's process (one that hangs, too) must not keep it alive.
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
  }

  private current(): string {
    return [...this.pending.values()][0]?.hook ?? "a call";
  }

  private read(): void {
    let buffered = "";
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => {
      buffered += chunk;
      let end: number;
      while ((end = buffered.indexOf("\n")) >= 0) {
        this.answer(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
      }
      if (buffered.length > MAX_LINE_BYTES) this.violate(`a line over ${MAX_LINE_BYTES} bytes`);
    });
    let errBuf = "";
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (chunk: string) => {
      errBuf += chunk;
      const lines = errBuf.split("\n");
      errBuf = lines.pop()!.slice(-4096);
      for (const line of lines) {
        if (this.logged++ < MAX_LOG_LINES) this.spec.log(`[${this.spec.name}] ${terminalText(line.slice(0, 2000), { colors: false })}`);
      }
    });
  }

  private answer(line: string): void {
    let message: { id?: unknown; ok?: unknown; value?: unknown; error?: unknown };
    try {
      message = JSON.parse(line);
    } catch {
      return this.violate("a line that is not JSON");
    }
    const pending = typeof message.id === "number" ? this.pending.get(message.id) : undefined;
    if (!pending) return; // an answer after its deadline
    this.pending.delete(message.id as number);
    clearTimeout(pending.timer);
    if (message.ok === true) pending.resolve(message.value);
    // The plugin's own message, as opencode would have shown it (the model reads a tool.execute.before throw).
    else pending.reject(new HookFailure("handler_threw", this.spec.path, pending.hook, typeof message.error === "string" ? message.error.slice(0, 4000) : "it threw"));
  }

  private violate(what: string): void {
    this.die(new HookFailure("protocol_violation", this.spec.path, this.current(), `${this.spec.name} wrote ${what} on its channel; its process was ended.`));
    this.child.kill("SIGKILL");
  }

  private die(failure: HookFailure): void {
    if (this.dead) return;
    this.dead = failure;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(Errors.crashed(this.spec.path, p.hook, failure.message.replace(/^.*? crashed [^:]*: /, "")));
    }
    this.pending.clear();
    this.afterDeath?.();
  }

  /** Sends one request; settles with the child's answer, its failure, or `timeout` after `deadlineMs`. */
  request(op: "load" | "call", hook: string, body: Record<string, unknown>, deadlineMs: number): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead.code === "crashed" ? Errors.crashed(this.spec.path, hook, this.dead.message.replace(/^.*? crashed [^:]*: /, "")) : this.dead);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(Errors.timeout(this.spec.path, hook, deadlineMs));
      }, deadlineMs);
      this.pending.set(id, { resolve, reject, timer, hook });
      try {
        this.child.stdin!.write(`${JSON.stringify({ id, op, hook, ...body })}\n`);
      } catch (e) {
        this.pending.delete(id);
        clearTimeout(timer);
        reject(Errors.crashed(this.spec.path, hook, (e as Error).message));
      }
    });
  }

  kill(): void {
    this.child.kill("SIGKILL");
  }
}
