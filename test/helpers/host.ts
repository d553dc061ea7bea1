/**
 * The one test harness: real runners over real fixture workers, every runner disposed after each
 * test. Loading adds nothing the test does not pass (no hidden liveness or deadline settings).
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe } from "vitest";
import { createModelRegistry, createSessionManager, HookRunner, loadHooks, type HookError, type LoadedHook, type LoadOptions, type RunnerInitOptions, type RunnerOptions } from "../../src/index.js";
import type { HookMessage } from "../../src/contract/types.js";
import { CALL } from "../../fixtures/valid/lib/scripted.js";
import { ISOLATION, POLICY } from "../support/isolation.js";

/** The repository root (no trailing slash, like process.cwd()). */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
/** Absolute path of `fixtures/valid/<name>.ts`, or of `fixtures/<rel>` when `rel` has an extension. */
export const fixture = (name: string) =>
  fileURLToPath(new URL(`../../fixtures/${/\.\w+$/.test(name) ? name : `valid/${name}.ts`}`, import.meta.url));

const live: HookRunner[] = [];
afterEach(async () => {
  await Promise.all(live.splice(0).map((r) => r.dispose()));
});

/** Dispose `runner` after the test (for runners a test builds itself). */
export function track(runner: HookRunner): HookRunner {
  live.push(runner);
  return runner;
}

/** Wait until `check` holds, polling every 10 ms; fails the test after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5_000, what = "condition"): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface Host {
  runner: HookRunner;
  /** HookErrors reported to onError, in order. */
  errors: HookError[];
  /** Every message hooks sent with pi.sendMessage, with its options, in order. */
  sent: Array<{ message: HookMessage; options: unknown }>;
  /** Every pi.appendEntry, in order. */
  entries: Array<[string, unknown]>;
  /** The handler calls the scripted fixtures recorded: "<label> <event>#<index>". */
  calls(): string[];
  /** The event each recorded call received. */
  received(): Array<Record<string, unknown>>;
}

/**
 * The host objects a runner is built over. `full`: createSessionManager() and createModelRegistry()
 * (every method of the contract). `seed`: what a host of the seed's agents passes, a session
 * manager with only `SEED_SESSION_METHODS` and a model registry `{}`.
 */
export const HOST_SHAPES = ["full", "seed"] as const;
export type HostShape = (typeof HOST_SHAPES)[number];

/** The session manager methods a seed-shaped host has (pi-mono's `ReadonlySessionManager`: no artifacts, blobs or usage). */
export const SEED_SESSION_METHODS = [
  "getCwd", "getSessionDir", "getSessionId", "getSessionFile", "getSessionName", "getLeafId", "getLeafEntry", "getEntry",
  "getLabel", "getBranch", "getHeader", "getEntries", "getTree",
] as const;

/** The shape `start` and `startShared` build with when a test names none (`eachHostShape` sets it per block). */
let currentShape: HostShape = "full";

/**
 * Run `body`'s tests once per host shape, each block under `<shape> host`: the suites written for
 * one host run unchanged over the seed-shaped host too.
 */
export function eachHostShape(body: () => void): void {
  for (const shape of HOST_SHAPES) {
    describe(`${shape} host`, () => {
      beforeAll(() => { currentShape = shape; });
      afterAll(() => { currentShape = "full"; });
      body();
    });
  }
}

/** A session manager with only `SEED_SESSION_METHODS`, answered by createSessionManager(). */
export function seedSessionManager(): Record<string, unknown> {
  const full = createSessionManager() as unknown as Record<string, unknown>;
  return Object.fromEntries(SEED_SESSION_METHODS.map((name) => [name, full[name]]));
}

export interface HostOptions {
  /** The runner's cwd; the repository root unless given. */
  cwd?: string;
  /** The host objects' shape (`HOST_SHAPES`); the enclosing `eachHostShape` block's, else `full`. */
  shape?: HostShape;
  /** Passed to initialize after the recording handlers; `false` leaves the runner uninitialized. */
  init?: Partial<RunnerInitOptions> | false;
  runner?: RunnerOptions;
  /** Fields laid over the shape's session manager. */
  sessionManager?: object;
  /** The runner's model registry; the shape's (createModelRegistry() with no models, or `{}`) unless given. */
  modelRegistry?: object;
}

export interface StartOptions extends HostOptions {
  /** Passed to loadHooks as is, after `isolation` from HOOKBOX_TEST_ISOLATION (and `policy` from HOOKBOX_TEST_POLICY). */
  load?: LoadOptions;
}

/** Load fixtures (names under fixtures/valid, `<dir>/<file>.ts` under fixtures/, or absolute paths), build and initialize a runner. */
export async function start(names: string[], options: StartOptions = {}): Promise<Host> {
  return build(names, { shape: currentShape, ...options }, track);
}

/** Build and initialize a runner over hooks a test loaded itself (discovery, its own folders); disposed after the test. */
export function host(hooks: LoadedHook[], options: HostOptions = {}): Host {
  return wrap(track(runnerOver(hooks, { shape: currentShape, ...options })), options);
}

const shared = new Map<string, Promise<Host>>();
afterAll(async () => {
  const hosts = await Promise.all([...shared.values()]);
  shared.clear();
  await Promise.all(hosts.map((h) => h.runner.dispose()));
});

/**
 * A runner over `names` shared by the tests of one file (disposed after all of them), its records
 * cleared for each caller. For the conformance matrix, where ~100 cases use ~15 hook sets and
 * loading each set per case would only measure worker start-up.
 */
export async function startShared(names: string[]): Promise<Host> {
  const key = [currentShape, ...names].join("\0");
  let host = shared.get(key);
  if (!host) shared.set(key, (host = build(names, { shape: currentShape }, (r) => r)));
  const h = await host;
  h.errors.length = 0;
  h.sent.length = 0;
  h.entries.length = 0;
  return h;
}

async function build(names: string[], options: StartOptions, keep: (r: HookRunner) => HookRunner): Promise<Host> {
  const paths = names.map((n) => (n.startsWith("/") ? n : fixture(n)));
  const { hooks, errors: loadErrors } = await loadHooks(paths, options.cwd ?? ROOT, { isolation: ISOLATION, ...(POLICY ? { policy: POLICY } : {}), ...options.load });
  const runner = keep(runnerOver(hooks, options));
  if (loadErrors.length > 0) throw new Error(`fixtures failed to load: ${JSON.stringify(loadErrors)}`);
  return wrap(runner, options);
}

function runnerOver(hooks: LoadedHook[], options: HostOptions): HookRunner {
  const seed = (options.shape ?? currentShape) === "seed";
  const sessionManager = { ...(seed ? seedSessionManager() : createSessionManager()), ...options.sessionManager };
  const modelRegistry = options.modelRegistry ?? (seed ? {} : createModelRegistry());
  return new HookRunner(hooks, options.cwd ?? ROOT, sessionManager as never, modelRegistry as never, options.runner);
}

function wrap(runner: HookRunner, options: HostOptions): Host {
  const errors: HookError[] = [];
  const sent: Host["sent"] = [];
  const entries: Host["entries"] = [];
  runner.onError((e) => errors.push(e));
  if (options.init !== false) {
    runner.initialize({
      getModel: () => undefined,
      sendMessageHandler: (message, opts) => { sent.push({ message, options: opts }); },
      appendEntryHandler: (customType, data) => { entries.push([customType, data]); },
      ...options.init,
    });
  }
  const recorded = () => sent.filter((s) => s.message.customType === CALL);
  return {
    runner, errors, sent, entries,
    calls: () => recorded().map((s) => String(s.message.content)),
    received: () => recorded().map((s) => (s.message.details as { event: Record<string, unknown> }).event),
  };
}
