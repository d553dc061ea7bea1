/**
 * An agent started in a private mount namespace (bubblewrap; a user namespace when not root, so no
 * privilege is needed) that sees the machine as it is, but for a few files hookbox generated, each
 * read-only: the agent's managed settings and the router's plan under /etc, and filtered views of
 * a project's settings files. Not a sandbox: the same user, network, processes and files; only what
 * those paths read differs, and nothing the agent (or the model, through it) runs can change them.
 *
 * Why /etc is rebuilt: the managed folder (/etc/claude-code) may not exist, and bwrap would create
 * a missing mount point on the host's /etc. So /etc becomes a tmpfs holding a symlink to each host
 * entry (through one bind of the host's /etc), the managed folder rebuilt with the host's entries
 * bound read-only, and the generated files; then that tmpfs is made read-only, so no one adds a file
 * (another managed document) beside them. As root, CAP_SYS_ADMIN is dropped so they cannot be unmounted.
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, lstatSync, mkdtempSync, openSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { strictlyInside } from "../../gates/inside.js";
import { findOnPath } from "../../policy/runtime.js";

/** A file the agent reads, at an absolute path, with the content hookbox gives it. */
export interface FileView { path: string; content: string }

/** What `spawn` needs to start the agent in the namespace; `close` after the spawn. */
export interface ViewLaunch { command: string; args: string[]; stdio: Array<"inherit" | number>; close(): void }

export type ViewAvailability = { ok: true; bwrap: string } | { ok: false; reason: string };

const ETC = "/etc";
/** Where the host's /etc is bound inside the rebuilt one. */
const HOST_ETC = ".hookbox-host-etc";
/** The environment switch that refuses the namespace (the launcher then takes its fallback). */
export const NO_NAMESPACE_ENV = "HOOKBOX_NO_NAMESPACE";

let probed: ViewAvailability | undefined;
/** Whether a private mount namespace can be made here, and if not, why (checked once, by making one). */
export function agentViewAvailability(): ViewAvailability {
  if (process.env[NO_NAMESPACE_ENV]) return { ok: false, reason: `${NO_NAMESPACE_ENV} is set` };
  if (probed) return probed;
  probed = probe();
  return probed;
}

function probe(): ViewAvailability {
  if (process.platform !== "linux") return { ok: false, reason: `a private mount namespace needs Linux (this is ${process.platform})` };
  const bwrap = findOnPath("bwrap");
  if (!bwrap) return { ok: false, reason: "bubblewrap is not installed (apt-get install bubblewrap)" };
  const r = spawnSync(bwrap, ["--dev-bind", "/", "/", "--tmpfs", ETC, "--remount-ro", ETC, "true"], { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "ignore", "pipe"] });
  if (r.status !== 0) return { ok: false, reason: `bubblewrap cannot make a mount namespace here (${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}): allow unprivileged user namespaces (user.max_user_namespaces > 0)` };
  return { ok: true, bwrap };
}

/**
 * The launch of `program args` in a namespace where each of `files` reads as given. A file under
 * /etc may be new; any other must exist on the host (its view is bound over it).
 */
export function agentViewLaunch(bwrap: string, files: FileView[], program: string, args: string[], copies: Array<{ source: string; path: string }> = []): ViewLaunch {
  const etcFiles = files.filter((f) => strictlyInside(ETC, f.path));
  for (const f of files) if (!etcFiles.includes(f) && !existsSync(f.path)) throw new Error(`a view at ${f.path} needs the file to exist`);
  const rebuilt = new Set(etcFiles.flatMap((f) => ancestors(f.path)));
  const out = ["--dev-bind", "/", "/", "--tmpfs", ETC, "--dev-bind", ETC, `${ETC}/${HOST_ETC}`];
  for (const name of readdirSync(ETC)) {
    const path = `${ETC}/${name}`;
    if (rebuilt.has(path)) continue;
    // A symlink keeps its own target (readlink of /etc/localtime names the zone); anything else points into the host's /etc.
    out.push("--symlink", isLink(path) ? readlinkSync(path) : `${HOST_ETC}/${name}`, path);
  }
  for (const dir of [...rebuilt].sort()) {
    out.push("--dir", dir);
    if (!isDir(dir)) continue;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (!rebuilt.has(path) && !etcFiles.some((f) => f.path === path)) out.push("--ro-bind", path, path);
    }
  }
  // A folder as it is before the views cover parts of it, under /etc (bound first, so the views are not in it); writable as
  // the folder itself is (a hook's granted folder is written through it), which changes nothing the views show.
  for (const c of copies) {
    if (!strictlyInside(ETC, c.path) || rebuilt.has(c.path)) throw new Error(`a copy at ${c.path} must be a new path under ${ETC}`);
    out.push("--bind", c.source, c.path);
  }
  const scratch = mkdtempSync(join(tmpdir(), "hookbox-view-"));
  const fds: number[] = [];
  try {
    for (const f of files) {
      // The content reaches bwrap through a descriptor of an unlinked file: no path the agent could rewrite.
      const file = join(scratch, String(fds.length));
      writeFileSync(file, f.content, { mode: 0o600 });
      fds.push(openSync(file, "r"));
      rmSync(file);
      out.push("--perms", "0444", "--ro-bind-data", String(3 + fds.length - 1), f.path);
    }
  } catch (err) {
    for (const fd of fds) closeSync(fd);
    throw err;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  out.push("--remount-ro", ETC);
  if (process.geteuid?.() === 0) out.push("--cap-drop", "CAP_SYS_ADMIN");
  // The agent does not outlive hookbox: if the launcher is killed, so is the agent.
  out.push("--die-with-parent");
  return {
    command: bwrap,
    args: [...out, "--", program, ...args],
    stdio: ["inherit", "inherit", "inherit", ...fds],
    close: () => { for (const fd of fds) closeSync(fd); },
  };
}

/** The folders between /etc and `path`, below /etc. */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let dir = dirname(path); strictlyInside(ETC, dir); dir = dirname(dir)) out.push(dir);
  return out;
}

function isLink(path: string): boolean {
  try { return lstatSync(path).isSymbolicLink(); } catch { return false; }
}

function isDir(path: string): boolean {
  try { return statSync(path).isDirectory(); } catch { return false; }
}
