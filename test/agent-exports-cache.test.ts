/**
 * Where the agent's packages define each name (src/discovery/agent-exports.ts) is kept in the
 * host's private cache folder (src/extension/agent-exports-cache.ts): mapping pi's packages lexes
 * about 190 files, and every module's load spec waits for it. A record is used while every file it
 * was made from has the same size and modification time, and remade otherwise; a folder another
 * user could write is not used.
 */
import { createHash } from "node:crypto";
import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cachedAgentExports, withAgentExports } from "../src/extension/agent-exports-cache.js";
import { ROOT } from "./helpers/host.js";

const scratch = mkdtempSync(join(tmpdir(), "hookbox-agent-exports-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of fixtures/agent-package/by-name (its files can change), and its alias. */
function pkg(name: string) {
  const dir = join(scratch, name);
  cpSync(join(ROOT, "fixtures", "agent-package", "by-name"), dir, { recursive: true });
  return { dir, alias: { "@mariozechner/pi-ai": join(dir, "index.js") } };
}
const recorded = (cache: string) => readdirSync(join(cache, "exports")).filter((n) => n.endsWith(".json"));
type Body = { exports: Record<string, { names: Record<string, unknown> }> };
/** A record's body: after its format line and its sha256 line. */
const body = (file: string) => JSON.parse(readFileSync(file, "utf8").split("\n").slice(2).join("\n")) as Body;
/** `data` as the record's body, under the record's own format line and the body's sha256 (`hash`: another). */
function writeRecord(file: string, data: Body, hash?: string) {
  const [format] = readFileSync(file, "utf8").split("\n");
  const text = JSON.stringify(data);
  writeFileSync(file, `${format}\n${hash ?? createHash("sha256").update(text).digest("hex")}\n${text}`);
}

describe("the map of the agent's packages, kept between starts", () => {
  it("is read from its record while the files it was made from are unchanged, and made again after one changed", () => {
    const { dir, alias } = pkg("changes");
    const cache = join(scratch, "cache");
    const first = cachedAgentExports(alias, cache);
    expect(first[alias["@mariozechner/pi-ai"]]?.names.formatSize).toEqual([0, "formatSize"]);
    const [record] = recorded(cache);
    // A record edited in place, with its header's hash, is what is read: the files were not lexed again.
    const file = join(cache, "exports", record!);
    const edited = body(file);
    edited.exports[alias["@mariozechner/pi-ai"]]!.names = { fromTheRecord: [0, "formatSize"] };
    writeRecord(file, edited);
    expect(Object.keys(cachedAgentExports(alias, cache)[alias["@mariozechner/pi-ai"]]!.names)).toEqual(["fromTheRecord"]);
    // One of its files changed (a sibling the entry re-exports): mapped again, the change seen.
    writeFileSync(join(dir, "left.js"), `${readFileSync(join(dir, "left.js"), "utf8")}export const added = 1;\n`);
    expect(Object.keys(cachedAgentExports(alias, cache)[alias["@mariozechner/pi-ai"]]!.names).sort()).toEqual(["Box", "MAX", "added", "formatSize", "onlyLeft"]);
  });

  it("is not read when its body is not what its header's hash says (cut or changed), and is made again", () => {
    const { alias } = pkg("cut");
    const cache = join(scratch, "cut-cache");
    const made = cachedAgentExports(alias, cache);
    const file = join(cache, "exports", recorded(cache)[0]!);
    const original = readFileSync(file, "utf8");
    const [, hash] = original.split("\n");
    const edited = body(file);
    edited.exports[alias["@mariozechner/pi-ai"]]!.names = { fromTheRecord: [0, "formatSize"] };
    writeRecord(file, edited, hash);
    expect(cachedAgentExports(alias, cache)).toEqual(made);
    writeFileSync(file, original.slice(0, original.length - 10));
    expect(cachedAgentExports(alias, cache)).toEqual(made);
    expect(readFileSync(file, "utf8")).toBe(original);
  });

  it("is not kept in a folder others can write, nor with transformCacheDir: false, and is the same map", () => {
    const { alias } = pkg("open");
    const open = join(scratch, "open-cache");
    const made = cachedAgentExports(alias, false);
    cachedAgentExports(alias, join(scratch, "private-cache"));
    expect(recorded(join(scratch, "private-cache"))).toHaveLength(1);
    cpSync(join(scratch, "private-cache"), open, { recursive: true });
    chmodSync(join(open, "exports"), 0o777);
    rmSync(join(open, "exports", recorded(open)[0]!));
    expect(cachedAgentExports(alias, open)).toEqual(made);
    expect(recorded(open)).toEqual([]);
  });

  it("is made once per table and folder, when the load spec first reads it", () => {
    const { alias } = pkg("lazy");
    const table = { alias, native: [] };
    const cache = join(scratch, "lazy-cache");
    const given = withAgentExports(table, cache)!;
    expect(withAgentExports(table, cache)).toBe(given);
    expect(() => recorded(cache)).toThrow();
    expect(JSON.parse(JSON.stringify(given)).exports[alias["@mariozechner/pi-ai"]].names.Box).toEqual([1, "Box"]);
    expect(recorded(cache)).toHaveLength(1);
  });
});
