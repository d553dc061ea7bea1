/**
 * A hook in its own child process (`isolation: "process"`, and `"sandbox"` where the command is
 * wrapped in bubblewrap). The child is spawned (not forked: no Node IPC, whose parser throws in
 * the host) with stdin /dev/null, stdout and stderr to `onLog`, and three pipes of hookbox's framed
 * channel (./frames.ts): fd 3 child to host, fd 4 host to child, fd 5 answers to synchronous calls.
 * The comlink control plane rides on the channel as `{ t: "ctl", d }`; a `{ t: "fatal" }` frame is
 * the hook runtime's account of an uncaught exception, kept as an unverified claim.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import type { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import type { Endpoint } from "comlink";
import { DISPOSE_BOUND_MS, within, type EndpointDeath, type EndpointSpec, type HookEndpoint } from "./endpoint.js";
import { encodeFrame, FrameReader } from "./frames.js";
import { drainOutput } from "./output.js";
import { FATAL, MAX_FRAME_DEPTH, maxFrameBytes } from "../../worker/wire.mjs";
import { cut } from "../../worker/describe.mjs";
import { childEnv } from "../../worker/child-env.mjs";
import { HOST_BUN } from "../policy/runtime.js";

/** How a sandbox wraps the child's command line (see ./bwrap.ts). */
export interface Launcher {
  kind: "sandbox";
  /** The program and arguments that run `argv` inside the sandbox, and the launcher's own environment (worker/child-env.mjs). */
  wrap(argv: string[]): { command: string; args: string[]; env: Record<string, string> };
  /** Host-side observations after death (e.g. the memory bound was hit), then cleanup. */
  afterDeath?(): { outOfMemory?: boolean };
}

/**
 * On a Bun host, every child hookbox spawned, for the life of the host. Why: Bun (1.3.14) closes a
 * child's extra stdio pipes (fd 3-5, the channel) twice, once when their net.Socket ends and again
 * when the garbage collector finalizes the child's Subprocess (oven-sh/bun#30444, #33828). By then
 * the kernel has given those numbers to the next children's pipes, whose channel closes under them
 * (a healthy hook "exited with code 0"). A child kept reachable is never finalized; once closed it
 * keeps no listener, so what stays is the ChildProcess, about 125 KB (docs/runtimes.md; test/bun/cross-runner.test.ts).
 */
const BUN_CHILDREN = new Set<ChildProcess>();

/** After the child has exited, how long its pipes may stay open (a grandchild holding them) before the host closes them. */
const PIPES_AFTER_EXIT_MS = 1_000;
const SIGABRT = 6;

export function processEndpoint(spec: EndpointSpec, launcher?: Launcher): HookEndpoint {
  const { maxOldGenerationSizeMb, maxYoungGenerationSizeMb, stackSizeMb } = spec.resourceLimits;
  const v8Flags = [
    ...(maxOldGenerationSizeMb ? [`--max-old-space-size=${maxOldGenerationSizeMb}`] : []),
    ...(maxYoungGenerationSizeMb ? [`--max-semi-space-size=${Math.max(1, Math.floor(maxYoungGenerationSizeMb / 2))}`] : []),
    ...(stackSizeMb ? [`--stack-size=${Math.floor(stackSizeMb * 1024 * 0.9)}`] : []),
  ];
  if (!spec.runtime) throw new Error("a hook's child process needs its runtime (src/policy/runtime.ts)");
  const argv = [spec.runtime, ...(spec.execArgv ?? []), ...v8Flags, fileURLToPath(spec.entry), JSON.stringify(spec.boot)];
  // The hook's environment goes to node directly, or inside the sandbox through bwrap's --setenv;
  // the launcher itself gets its own (PATH only). Either way through the environment gate.
  const { command, args, env } = launcher ? launcher.wrap(argv) : { command: argv[0]!, args: argv.slice(1), env: spec.env };
  const child: ChildProcess = spawn(command, args, {
    env: childEnv(env),
    // Why "ignore" for stdin: a hook never reads the host's stdin (it would steal the user's input).
    stdio: ["ignore", "pipe", "pipe", "pipe", "pipe", "pipe"],
  });
  if (HOST_BUN) BUN_CHILDREN.add(child);
  const kind = launcher ? "sandbox" : "process";
  drainOutput(child.stdout!, "stdout", spec.onOutput);
  drainOutput(child.stderr!, "stderr", spec.onOutput);
  const fromChild = child.stdio[3] as Socket;
  const toChild = child.stdio[4] as Socket;
  const syncPipe = (child.stdio as unknown as Socket[])[5]!;
  const pipes = [child.stdout, child.stderr, fromChild, toChild, syncPipe] as Socket[];
  for (const pipe of pipes) pipe.on("error", () => {});

  const controlListeners = new Set<(ev: { data: unknown }) => void>();
  const messageHandlers: Array<(raw: unknown) => void> = [];
  let claim: EndpointDeath["claim"];
  let violation: string | undefined;
  const reader = new FrameReader({ maxFrameBytes: maxFrameBytes(spec.boot.maxMessageBytes), maxDepth: MAX_FRAME_DEPTH });
  fromChild.on("data", (chunk: Buffer) => {
    for (const raw of reader.push(chunk)) {
      const own = (k: string) => (raw && typeof raw === "object" && Object.hasOwn(raw, k) ? (raw as Record<string, unknown>)[k] : undefined);
      const t = own("t");
      if (t === "ctl") for (const l of controlListeners) l({ data: own("d") });
      else if (t === FATAL) claim = describeClaim(own("e"));
      else for (const h of messageHandlers) h(raw);
    }
    if (reader.violation && !violation) {
      violation = reader.violation;
      fromChild.destroy();
      child.kill("SIGKILL");
    }
  });

  const deathHandlers: Array<(d: EndpointDeath) => void> = [];
  let dead = false;
  const die = (death: EndpointDeath) => {
    if (dead) return;
    dead = true;
    controlOpen = false;
    for (const h of deathHandlers) h(death);
  };
  const released = once(child, "close").then(() => {});
  // 'close', not 'exit': by then fd 3 has been read to the end, so a last fatal frame is in.
  child.once("close", (code, signal) => {
    const observed = launcher?.afterDeath?.() ?? {};
    // bwrap reports its child's death by signal N as exit status 128 + N.
    const aborted = signal === "SIGABRT" || (launcher !== undefined && code === 128 + SIGABRT);
    die({ kind, code, signal, claim, violation, outOfMemory: observed.outOfMemory || (!violation && aborted) });
    // A kept child (Bun) holds nothing of the hook's channel: its listeners go, a no-op 'error' stays.
    if (HOST_BUN) setImmediate(() => { for (const h of [child, ...pipes]) h.removeAllListeners().on("error", () => {}); });
  });
  child.once("exit", () => {
    const t = setTimeout(() => { for (const pipe of pipes) pipe.destroy(); }, PIPES_AFTER_EXIT_MS);
    t.unref();
  });
  child.on("error", () => {});
  const handles = [child, ...pipes];
  const unref = () => { for (const h of handles) h.unref(); };
  unref();

  let controlOpen = true;
  const send = (message: unknown) => {
    if (dead || toChild.destroyed) return;
    toChild.write(encodeFrame(message));
  };
  const control: Endpoint = {
    // Why guarded: comlink may post (a RELEASE from its FinalizationRegistry) after the child is gone.
    postMessage: (data: unknown) => {
      if (!controlOpen) return;
      try { send({ t: "ctl", d: data }); } catch { /* not cloneable: comlink's own values always are */ }
    },
    addEventListener: (_type: string, listener: any) => { controlListeners.add(listener); },
    removeEventListener: (_type: string, listener: any) => { controlListeners.delete(listener); },
  };
  return {
    // A child that is gone takes nothing; its 'close' rejects every pending request with its death.
    post: (message) => send(message),
    onMessage: (handler) => { messageHandlers.push(handler); },
    answerSync(reply) {
      let frame: Buffer;
      try {
        frame = encodeFrame(reply);
      } catch (err) {
        frame = encodeFrame({ id: reply.id, ok: false, e: { message: `the answer is not plain data: ${(err as Error).message}` } });
      }
      if (!syncPipe.destroyed) syncPipe.write(frame);
    },
    control,
    closeControl: () => { controlOpen = false; controlListeners.clear(); },
    render: undefined,
    ref: () => { for (const h of handles) h.ref(); },
    unref,
    terminate: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      if (!(await within(released, DISPOSE_BOUND_MS))) die({ kind, code: null, abandoned: true });
    },
    onDeath: (handler) => { deathHandlers.push(handler); },
    released,
  };
}

function describeClaim(e: unknown): EndpointDeath["claim"] {
  if (!e || typeof e !== "object") return undefined;
  // Own properties only: a decoded value's missing key must not be read off Object.prototype.
  const pick = (k: string) => {
    const v = Object.hasOwn(e, k) ? (e as Record<string, unknown>)[k] : undefined;
    return typeof v === "string" ? cut(v, 8192) : undefined;
  };
  return { message: pick("message"), name: pick("name"), stack: pick("stack"), value: pick("value") };
}
