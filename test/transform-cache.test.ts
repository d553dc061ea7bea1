import { chmodSync, chownSync, existsSync, readFileSync, readdirSync, statSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TransformCache, type TransformRequest } from "../src/transform/cache.js";
import { TRANSFORM_FILE_CHARACTERS } from "../src/transform/budget.js";
import { TransformOutOfMemory, transformInThread } from "../src/transform/transformer.js";
import { installPiDir } from "./support/pi-run.js";
import { tempDir } from "./helpers/files.js";

const request = (source: string, filename = "/hooks/a.ts"): TransformRequest => ({ source, filename, ts: true, async: true, interopDefault: true });
const entryFile = (cache: TransformCache, r: TransformRequest) => join(cache.dir as string, `${TransformCache.key(r)}.js`);

describe("the host's transform cache", () => {
  it("the key is the hash of the source, the filename and every option, so any change is a different entry", () => {
    const base = request("export const x: number = 1;");
    const keys = [base, { ...base, source: "export const x: number = 2;" }, { ...base, filename: "/hooks/b.ts" }, { ...base, async: false }, { ...base, ts: false }].map(TransformCache.key);
    expect(new Set(keys).size).toBe(5);
    expect(TransformCache.key({ ...base })).toBe(keys[0]);
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a transform is stored under its key with the hash of its code, and the same request is answered from the entry", async () => {
    const cache = new TransformCache(join(tempDir(), "cache"));
    const r = request("export default (n: number): number => n + 1;");
    const code = await cache.transform(r);
    expect(code).toContain("exports.default");
    expect(code).not.toContain(": number");
    const file = entryFile(cache, r);
    expect(readFileSync(file, "utf8").split("\n")[0]).toMatch(/^\/\/ hookbox-transform-1 [0-9a-f]{64}$/);
    expect(await cache.get(TransformCache.key(r))).toBe(code);
    expect(readdirSync(cache.dir as string).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("an entry read is marked used (its modification time now) before the answer, so the bound keeps what was just read", async () => {
    const cache = new TransformCache(join(tempDir(), "cache"));
    const r = request("export const used: number = 1;");
    const code = await cache.transform(r);
    const file = entryFile(cache, r);
    utimesSync(file, new Date(2000, 0), new Date(2000, 0));
    const answer = cache.get(TransformCache.key(r));
    // Marked by the time get() returned, not on a later turn.
    expect(statSync(file).mtime.getFullYear()).toBeGreaterThan(2000);
    expect(await answer).toBe(code);
  });

  it("a corrupted or truncated entry is removed and the source is transformed again", async () => {
    const cache = new TransformCache(join(tempDir(), "cache"));
    const r = request("export const answer: number = 42;");
    const code = await cache.transform(r);
    const file = entryFile(cache, r);
    truncateSync(file, statSync(file).size - 5);
    expect(await cache.get(TransformCache.key(r))).toBeUndefined();
    expect(existsSync(file)).toBe(false);
    expect(await cache.transform(r)).toBe(code);
    // Code changed under an intact-looking header is refused the same way.
    const [header] = readFileSync(file, "utf8").split("\n");
    writeFileSync(file, `${header}\nthrow new Error("poisoned");`);
    expect(await cache.transform(r)).toBe(code);
    expect(readFileSync(file, "utf8")).toContain("exports.answer");
  });

  it("the folder is kept within its size bound, least recently used entries removed first", async () => {
    const dir = join(tempDir(), "cache");
    const probe = new TransformCache(dir);
    const one = await probe.transform(request("export const v0 = 0;"));
    const entryBytes = statSync(entryFile(probe, request("export const v0 = 0;"))).size;
    expect(one.length).toBeGreaterThan(0);
    const cache = new TransformCache(dir, entryBytes * 3 + 10);
    const requests = [1, 2, 3].map((i) => request(`export const v${i} = ${i};`));
    for (const [i, r] of requests.entries()) {
      await cache.transform(r);
      utimesSync(entryFile(cache, r), new Date(2000 + i, 0), new Date(2000 + i, 0));
    }
    utimesSync(entryFile(cache, request("export const v0 = 0;")), new Date(1990, 0), new Date(1990, 0));
    // v0 is the oldest; a fourth entry pushes the folder over the bound.
    await cache.transform(request("export const v4 = 4;"));
    const names = readdirSync(dir);
    const total = names.reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
    expect(total).toBeLessThanOrEqual(cache.maxBytes);
    expect(existsSync(entryFile(cache, request("export const v0 = 0;")))).toBe(false);
    expect(existsSync(entryFile(cache, request("export const v1 = 1;")))).toBe(false);
    expect(existsSync(entryFile(cache, requests[2]!))).toBe(true);
    expect(existsSync(entryFile(cache, request("export const v4 = 4;")))).toBe(true);
  });

  it("a folder other users may write is not used: transforms still work, nothing is stored", async () => {
    const dir = join(tempDir(), "open");
    new TransformCache(dir);
    chmodSync(dir, 0o777);
    const cache = new TransformCache(dir);
    expect(cache.dir).toBe(false);
    expect(await cache.transform(request("export const y: string = 'y';"))).toContain("exports.y");
    expect(readdirSync(dir)).toEqual([]);
  });

  it.skipIf(process.getuid?.() !== 0)("a folder another user owns is not used, however private (control: the same folder given back to this user is)", async () => {
    const dir = join(tempDir(), "theirs");
    new TransformCache(dir);
    chownSync(dir, 65534, 65534);
    expect(new TransformCache(dir).dir).toBe(false);
    chownSync(dir, process.getuid!(), process.getgid!());
    expect(new TransformCache(dir).dir).toBe(dir);
  });

  it("a syntax error comes back as jiti's error module, which jiti turns into the load error", async () => {
    const code = await new TransformCache(false).transform(request("export const = ;"));
    expect(code).toContain("__JITI_ERROR__");
  });
});

describe("the transform thread's heap", () => {
  it("a source that exhausts it fails as TransformOutOfMemory naming the file and the bound; a request queued behind it is transformed by a new thread", async () => {
    const dense = transformInThread({ source: "a;\n".repeat(330_000), filename: "/h/dense.ts", ts: true });
    const queued = transformInThread({ source: "export const x: number = 41 + 1;", filename: "/h/after.ts", ts: true });
    const refused = await dense.then(() => undefined, (err: unknown) => err);
    expect(refused).toBeInstanceOf(TransformOutOfMemory);
    expect((refused as Error).message).toBe('transforming "/h/dense.ts" took more than the 96 MB heap of the host\'s transform thread; refused. ' +
      "Split the file (or precompile it to plain JavaScript): real modules need far less");
    expect(await queued).toContain("41 + 1");
  }, 60_000);
});

describe("the transform thread's bounds fit real modules", () => {
  // The largest modules pi's install holds that jiti would transform: ES modules (the largest of
  // all, @google/genai's bundle, and pi-ai's model table) and TypeScript (openai's responses.ts).
  const REAL = [
    ["@google/genai/dist/node/index.mjs", false],
    ["@mariozechner/pi-ai/dist/models.generated.js", false],
    ["openai/src/resources/responses/responses.ts", true],
  ] as const;

  it("each is under the bound of one file and transforms within the thread's heap", async () => {
    const modules = join(installPiDir(), "node_modules");
    for (const [path, ts] of REAL) {
      const source = readFileSync(join(modules, path), "utf8");
      expect(source.length, path).toBeLessThan(TRANSFORM_FILE_CHARACTERS);
      const code = await transformInThread({ source, filename: join(modules, path), ts, async: false, interopDefault: true });
      expect(code, path).toMatch(/\S/);
    }
  }, 180_000);
});
