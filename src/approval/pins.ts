/**
 * Pinning without blocking, each file once: what one check (one routed event, one `hookbox trust`)
 * reads to fingerprint a project's hooks. A file is hashed once per check however many hooks name
 * it, whatever path reaches it (memoized by device, inode, size, mtime and ctime, read from the
 * open descriptor, so the hash is of the bytes read, and a file that changes while it is read is
 * refused); a folder is walked once. Reads are asynchronous, in chunks, and stop when the check is
 * aborted, so a router's deadline fires while a large file is being read. One budget per project:
 * every distinct file and byte counts once, from its size before it is read, so a project past the
 * bound is refused after a walk of names and sizes, never after reading gigabytes.
 */
import { createHash } from "node:crypto";
import type { BigIntStats } from "node:fs";
import { lstat, open, readdir, readlink, realpath, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { inside } from "../gates/inside.js";
import { resolvePolicy, type PolicyOption } from "../policy/policy.js";
import { FingerprintError, MAX_PINNED_BYTES, MAX_PINNED_FILES, type Fingerprint } from "./fingerprint.js";

const sha256 = (data: string) => createHash("sha256").update(data).digest("hex");

const CHUNK = 1 << 20;
/** Files read at once in a walk (descriptors are a shared resource). */
const PARALLEL = 16;

/** The identity of one version of a file: a change of content changes size, mtime or ctime (the kernel sets ctime). */
const identity = (s: BigIntStats) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;

export interface PinReaderOptions {
  signal?: AbortSignal;
  maxFiles?: number;
  maxBytes?: number;
}

/** One check's reader: memoized hashes and walks, one budget, one abort signal. */
export class PinReader {
  readonly #signal: AbortSignal | undefined;
  readonly #maxFiles: number;
  readonly #maxBytes: number;
  readonly #hashes = new Map<string, Promise<string>>();
  readonly #trees = new Map<string, Promise<Record<string, string>>>();
  readonly #counted = new Set<string>();
  #files = 0;
  #bytes = 0;
  /** How many files were read and hashed (the memo's misses): tests hold the router to one read per file. */
  reads = 0;

  constructor(options: PinReaderOptions = {}) {
    this.#signal = options.signal;
    this.#maxFiles = options.maxFiles ?? MAX_PINNED_FILES;
    this.#maxBytes = options.maxBytes ?? MAX_PINNED_BYTES;
  }

  /** The sha256 of a file's content (through links), `absent` when it does not exist, `not-a-file` for a folder or device. */
  async file(path: string): Promise<string> {
    const found = await this.#identify(path);
    return typeof found === "string" ? found : this.#hash(path, found);
  }

  /** Every entry under `root` (a real folder): files by content, links by their target's text, others by kind. */
  tree(root: string): Promise<Record<string, string>> {
    let walk = this.#trees.get(root);
    if (!walk) {
      walk = this.#walk(root);
      this.#trees.set(root, walk);
    }
    return walk;
  }

  /** `path`'s real path, or a FingerprintError naming it. */
  async real(path: string): Promise<string> {
    try {
      return await realpath(path);
    } catch (err) {
      throw new FingerprintError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  }

  #count(key: string, bytes: number, path: string): void {
    if (this.#counted.has(key)) return;
    this.#counted.add(key);
    this.#files += 1;
    this.#bytes += bytes;
    if (this.#files > this.#maxFiles || this.#bytes > this.#maxBytes) {
      throw new FingerprintError(`the project's hooks could load more than ${this.#maxFiles} files or ${this.#maxBytes / 1024 / 1024} MiB (reached ${path}), too many to pin; ` +
        "put each hook's files in a folder of their own");
    }
  }

  async #read(path: string, key: string): Promise<string> {
    this.reads += 1;
    let handle;
    try {
      handle = await open(path, "r");
    } catch (err) {
      throw new FingerprintError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    try {
      const before = await handle.stat({ bigint: true });
      // Why: the path may have been swapped between stat and open; what is hashed is what was opened.
      if (identity(before) !== key) throw new FingerprintError(`${path} changed while it was being pinned`);
      const hash = createHash("sha256");
      const buffer = Buffer.allocUnsafe(CHUNK);
      for (;;) {
        this.#signal?.throwIfAborted();
        const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
        if (bytesRead === 0) break;
        hash.update(buffer.subarray(0, bytesRead));
      }
      if (identity(await handle.stat({ bigint: true })) !== key) throw new FingerprintError(`${path} changed while it was being pinned`);
      return hash.digest("hex");
    } finally {
      await handle.close();
    }
  }

  /** Stat `path` and count it against the budget (once per version of a file). */
  async #identify(path: string): Promise<string | { key: string }> {
    this.#signal?.throwIfAborted();
    let s: BigIntStats;
    try {
      s = await stat(path, { bigint: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return "absent";
      throw new FingerprintError(`cannot read ${path}: ${code ?? String(err)}`);
    }
    if (!s.isFile()) return "not-a-file";
    const key = identity(s);
    this.#count(key, Number(s.size), path);
    return { key };
  }

  #hash(path: string, found: { key: string }): Promise<string> {
    let hash = this.#hashes.get(found.key);
    if (!hash) {
      hash = this.#read(path, found.key);
      this.#hashes.set(found.key, hash);
    }
    return hash;
  }

  async #walk(root: string): Promise<Record<string, string>> {
    const files: Record<string, string> = {};
    const found: Array<[string, { key: string }]> = [];
    const stack = [root];
    // Names and sizes of the whole tree first, then contents: a tree past the bound is refused before any of it is read.
    while (stack.length > 0) {
      this.#signal?.throwIfAborted();
      const dir = stack.pop()!;
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        throw new FingerprintError(`cannot read the folder ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      }
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) stack.push(path);
        else if (entry.isSymbolicLink()) {
          this.#count(`link:${path}`, 0, path);
          files[path] = `link:${await readlink(path)}`;
        } else if (entry.isFile()) {
          const id = await this.#identify(path);
          if (typeof id === "string") files[path] = id;
          else found.push([path, id]);
        } else files[path] = "special";
      }
    }
    for (let i = 0; i < found.length; i += PARALLEL) {
      const batch = found.slice(i, i + PARALLEL);
      const hashes = await Promise.all(batch.map(([path, id]) => this.#hash(path, id)));
      batch.forEach(([path], j) => { files[path] = hashes[j]!; });
    }
    return files;
  }
}

/**
 * The fingerprint of something that is not a module (a Claude Code hook's command): `subject`
 * (what it runs, as JSON), each of `files` by content and each of `folders` whole, and the policy;
 * `key` names it in the approvals store. A link is pinned twice: by its target's text (swapping it
 * asks again) and by the content it leads to (`<link> -> <real path>`), followed through links in
 * the folders too, which must stay inside `root` (the project): one leaving it is refused by name.
 */
export async function pinnedFingerprint(key: string, subject: unknown, pinned: { root: string; files: string[]; folders: string[] }, policy: PolicyOption, reader: PinReader): Promise<Fingerprint> {
  const files: Record<string, string> = {};
  const followed = new Set<string>();
  const follow = async (path: string) => {
    if (followed.has(path)) return;
    followed.add(path);
    const real = await reader.real(path);
    if (!inside(pinned.root, real)) {
      throw new FingerprintError(`${path} leads outside the project (to ${real}): a link out of the project is not approved; copy what it leads to into the project`);
    }
    if (real === path) return;
    const s = await stat(real);
    if (s.isDirectory()) Object.assign(files, await reader.tree(real));
    else files[`${path} -> ${real}`] = await reader.file(real);
  };
  for (const folder of pinned.folders) {
    await follow(folder);
    Object.assign(files, await reader.tree(await reader.real(folder)));
  }
  for (const file of pinned.files) {
    const hash = await reader.file(file);
    if (hash === "absent") { files[file] = hash; continue; }
    await follow(file);
    if (!Object.hasOwn(files, file)) files[file] = (await lstat(file)).isSymbolicLink() ? `link:${await readlink(file)}` : hash;
  }
  // Links found in the folders lead to content that is pinned too (a worklist: a followed folder may hold more links).
  for (let again = true; again;) {
    again = false;
    for (const [path, value] of Object.entries(files)) {
      if (!value.startsWith("link:") || followed.has(path)) continue;
      again = true;
      try {
        await follow(path);
      } catch (err) {
        if (!(err instanceof FingerprintError && /ENOENT/.test(err.message))) throw err;
        // A dangling link: what it names is pinned as absent (a file appearing there asks again), and must be in the project too.
        const target = resolve(dirname(path), value.slice("link:".length));
        if (!inside(pinned.root, target)) throw new FingerprintError(`${path} leads outside the project (to ${target}): a link out of the project is not approved; copy what it leads to into the project`);
        files[`${path} -> ${target}`] = "absent";
      }
    }
  }
  const resolved = resolvePolicy(policy);
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    module: key, real: key,
    policyName: typeof policy === "string" ? policy : "custom",
    files: sorted,
    digest: sha256(JSON.stringify({ module: key, subject, files: sorted, policy: resolved })),
  };
}
