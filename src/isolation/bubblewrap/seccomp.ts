/**
 * The seccomp filter every sandbox starts under (a hook's and each `pi.exec` program's): a BPF
 * program per architecture, compiled by scripts/seccomp_filter.py with libseccomp and checked in
 * (src/isolation/bubblewrap/seccomp/<arch>.bpf; test/seccomp.test.ts regenerates and compares it). The launcher
 * opens it and hands it to `bwrap --seccomp FD`. No blob for this machine's architecture: the
 * sandbox cannot be built (`load_failed`), never a sandbox without its filter.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Node's `process.arch` to the kernel's name, which names the blob. */
const ARCH: Record<string, string> = { x64: "x86_64", arm64: "aarch64" };

/** The filter's file for `arch` (a `process.arch` value), or why there is none. */
export function seccompFilter(arch: string = process.arch): { path: string } | { reason: string } {
  const name = ARCH[arch];
  if (!name) return { reason: `isolation "sandbox" has no seccomp filter for the ${arch} architecture (x64 and arm64 only); a sandbox is never started without one` };
  const path = fileURLToPath(new URL(`./seccomp/${name}.bpf`, import.meta.url));
  if (!existsSync(path)) return { reason: `the seccomp filter ${path} is missing (regenerate it with scripts/seccomp_filter.py); a sandbox is never started without one` };
  return { path };
}
