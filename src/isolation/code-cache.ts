/**
 * The V8 code cache of the worker runtime (dist/worker/entry-thread.bundle.cjs): what V8 compiled
 * of the runtime, handed to every hook thread so that it does not compile the same functions again
 * (worker/entry-thread-cached.cjs compiles the bundle with it).
 *
 * Why it is made the way it is: V8 checks a cache's version, flags and source length, not its
 * content; bytes crafted by a hook and fed to another thread would be code execution in it. So:
 * - The bytes only ever come from a thread the host started itself, through the normal path, on
 *   its own module (dist/worker/code-cache-warm-up.ts, scripts/bundle-runtime.mjs) with `produce`
 *   in its boot: no hook's code ever ran in that isolate. Only that thread's load reply may carry
 *   bytes (`codeCacheReplySchema`); a hook's reply that does is a protocol violation.
 * - They are kept in the host's private transform cache folder (a folder the supervisor refuses
 *   to start a hook whose policy reaches), in a file named by the sha256 of the bundle, Node's and
 *   V8's versions and the architecture, whose header holds the sha256 of the bytes (V8 does not
 *   checksum a cache in release builds): a cut or changed file is dropped, never fed to V8.
 * - A thread gets them in its boot (workerData), so it needs no read grant for them. `transformCacheDir:
 *   false`, a Bun host (JavaScriptCore has no V8 cache), and the source tree (no bundle): none.
 * Made once, in the background: after the host's loads settled (none in flight for `SETTLE_MS`),
 * never while a start waits.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeFileAtomic } from "../gates/atomic-write.js";
import { privateDir } from "../gates/private-dir.js";
import { seal, unseal } from "../gates/sealed.js";
import { HOST_BUN } from "../policy/runtime.js";
import type { BootCodeCache } from "../contract/protocol.js";

const BUNDLE = fileURLToPath(new URL("../../worker/entry-thread.bundle.cjs", import.meta.url));
/** The thread entry that compiles the bundle with a cache; started instead of the bundle on Node (src/isolation/spawn.ts). */
export const CACHED_ENTRY = new URL("../../worker/entry-thread-cached.cjs", import.meta.url);
/** The host's own module the cache is made with. */
export const WARM_UP_MODULE = fileURLToPath(new URL("../../worker/code-cache-warm-up.ts", import.meta.url));
/** Bumped when the file format changes: old files then miss. */
const FORMAT = "hookbox-code-cache-1";
/** How long no load may be in flight before the cache is made. */
const SETTLE_MS = 150;
/** How many times one host makes the cache at most: a thread that says V8 rejected it asks for one more, never more. */
const MAX_MAKES = 2;

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/** Whether hook threads start through the cached entry: a Node host running the built package. */
export const codeCacheUsable = (): boolean => (usable ??= HOST_BUN === undefined && existsSync(BUNDLE) && existsSync(fileURLToPath(CACHED_ENTRY)));
let usable: boolean | undefined;

let bundleKey: string | undefined;
/** The file name's key: everything V8's own check covers and more (the bundle's content, not only its length). */
function keyOf(): string {
  return (bundleKey ??= sha256(JSON.stringify([FORMAT, sha256(readFileSync(BUNDLE)), process.version, process.versions.v8, process.arch])));
}

/** The code cache of one transform cache folder, shared by every hook of this host that names it. */
export class CodeCache {
  readonly file: string;
  /** `undefined`: not read yet; `null`: none (or dropped). */
  #bytes: Uint8Array | null | undefined;
  #inFlight = 0;
  #made = 0;
  #making = false;
  #timer: NodeJS.Timeout | undefined;
  #make: (() => Promise<void>) | undefined;

  constructor(dir: string) {
    this.file = join(dir, "code", `${keyOf()}.bin`);
  }

  /** The bytes, read once; a file whose header does not match its bytes is removed. */
  bytes(): Uint8Array | undefined {
    if (this.#bytes === undefined) this.#bytes = read(this.file);
    return this.#bytes ?? undefined;
  }

  /** What a hook thread's boot carries: the bytes when there are some. Counts a load in flight until `settled`. */
  boot(): BootCodeCache | undefined {
    this.#inFlight++;
    clearTimeout(this.#timer);
    const bytes = this.bytes();
    return bytes ? { bytes } : undefined;
  }

  /**
   * A load begun with `boot` ended. `verdict`: what the thread said of the bytes (a hook may lie:
   * "rejected" only drops the file and makes one more, within `MAX_MAKES`). `make`: how to start
   * the host's own thread that makes them (`makeCodeCache`), kept until the loads settle.
   */
  settled(verdict: "accepted" | "rejected" | undefined, make: () => Promise<void>): void {
    this.#inFlight--;
    if (verdict === "rejected" && this.#bytes) {
      this.#bytes = null;
      try { unlinkSync(this.file); } catch { /* already gone */ }
    }
    if (this.bytes() || this.#making || this.#made >= MAX_MAKES) return;
    this.#make = make;
    if (this.#inFlight === 0) this.#schedule();
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      const make = this.#make;
      if (this.#inFlight > 0 || this.#making || !make) return;
      this.#make = undefined;
      this.#making = true;
      this.#made++;
      void make().catch(() => {}).finally(() => { this.#making = false; });
    }, SETTLE_MS);
    this.#timer.unref();
  }

  /** Bytes from the host's own thread (never a hook's): kept, and written for the next host. */
  async store(bytes: Uint8Array): Promise<void> {
    this.#bytes = bytes;
    await writeFileAtomic(this.file, seal(FORMAT, bytes)).catch(() => {});
  }
}

/** The bytes of a cache file, or null when it is missing or its header is not its bytes' hash (cut, changed). */
function read(file: string): Uint8Array | null {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch {
    return null;
  }
  const body = unseal(FORMAT, data);
  if (body && body.length > 0) return body;
  try { unlinkSync(file); } catch { /* already gone */ }
  return null;
}

const caches = new Map<string, CodeCache>();

/** The code cache of a transform cache folder; none without one (`false`, not private), on Bun, or from the source tree. */
export function codeCacheFor(dir: string | false): CodeCache | undefined {
  if (dir === false || !codeCacheUsable()) return undefined;
  let cache = caches.get(dir);
  if (!cache) {
    // Both closed to others: the folder a hook may not reach, and ours in it.
    if (!privateDir(dir) || !privateDir(join(dir, "code"))) return undefined;
    cache = new CodeCache(dir);
    caches.set(dir, cache);
  }
  return cache;
}

/** The host's own threads that make the runtime's code cache (their supervisors), with the cache each one makes. */
const makers = new WeakMap<object, CodeCache>();

/** The cache `supervisor` makes, when it is one of the host's own threads that make one. */
export const cacheMadeBy = (supervisor: object): CodeCache | undefined => makers.get(supervisor);

/**
 * Make the runtime's code cache: the host's own module (above: never a hook's), in a thread started
 * as a hook's are (`supervise`: a supervisor of it, as of a hook), then ended.
 */
export async function makeCodeCache(cache: CodeCache, supervise: (module: string) => { start(): Promise<unknown>; dispose(): Promise<void> }): Promise<void> {
  const maker = supervise(WARM_UP_MODULE);
  makers.set(maker, cache);
  try {
    await maker.start();
  } finally {
    await maker.dispose();
  }
}
