#!/usr/bin/python3
"""
The seccomp filter of every hookbox sandbox (a hook's and each `pi.exec` program's), compiled with
libseccomp (python3-seccomp) into one BPF program per architecture: src/isolation/bubblewrap/seccomp/<arch>.bpf,
checked in and loaded by src/isolation/bubblewrap/bwrap.ts (`bwrap --seccomp FD`). Regenerate after editing:

    /usr/bin/python3 scripts/seccomp_filter.py     # writes the blobs and manifest.json
    /usr/bin/python3 scripts/seccomp_filter.py --out DIR # writes them elsewhere (the drift test compares)

Everything is allowed but what a hook has no use for and the kernel's attack surface grows by:
new user namespaces, tracing other processes, the kernel keyring, eBPF, perf events, io_uring, the
mount family, kexec, module loading, and pushing bytes into a terminal's input. Denied calls fail
with EPERM (clone3 with ENOSYS, see below). A syscall from another ABI (i386, x32) kills the caller:
it would bypass every rule.
"""
import errno
import json
import os
import sys

import seccomp

CLONE_NEWUSER = 0x10000000
TIOCSTI = 0x5412
TIOCLINUX = 0x541C

ARCHES = {"x86_64": seccomp.Arch.X86_64, "aarch64": seccomp.Arch.AARCH64}

DENIED = [
    # Tracing and reading other processes.
    "ptrace", "process_vm_readv", "process_vm_writev",
    # The kernel keyring.
    "keyctl", "add_key", "request_key",
    # eBPF, perf events, userfaultfd: large kernel attack surface, no use for a hook.
    "bpf", "perf_event_open", "userfaultfd",
    # io_uring: its operations bypass seccomp's per-syscall checks.
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # The mount family (new and old API).
    "mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
    # Kernel images and modules.
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    # Joining other namespaces.
    "setns",
]


def build(arch):
    f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    f.remove_arch(seccomp.Arch.NATIVE)
    f.add_arch(ARCHES[arch])
    f.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    eperm = seccomp.ERRNO(errno.EPERM)
    for name in DENIED:
        f.add_rule(eperm, name)
    # New user namespaces: clone and unshare with CLONE_NEWUSER.
    f.add_rule(eperm, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))
    f.add_rule(eperm, "unshare", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))
    # Why ENOSYS: clone3's flags sit in memory a filter cannot read, so it is refused whole; libc
    # falls back to clone (checked above) only on ENOSYS, never on EPERM.
    f.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    # Why the 32-bit mask: the kernel reads the request as an int, so the upper half must not
    # matter (a request with high bits set is still TIOCSTI).
    for request in (TIOCSTI, TIOCLINUX):
        f.add_rule(eperm, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    return f


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "isolation", "bubblewrap", "seccomp")
    if len(sys.argv) == 3 and sys.argv[1] == "--out":
        out = sys.argv[2]
    elif len(sys.argv) != 1:
        sys.exit("usage: scripts/seccomp_filter.py [--out DIR]")
    os.makedirs(out, exist_ok=True)
    for arch in ARCHES:
        with open(os.path.join(out, f"{arch}.bpf"), "wb") as blob:
            build(arch).export_bpf(blob)
    api = seccomp.get_api()
    manifest = {"generator": "scripts/seccomp_filter.py", "libseccomp_api": api, "denied": DENIED + ["clone(CLONE_NEWUSER)", "unshare(CLONE_NEWUSER)", "clone3 (ENOSYS)", "ioctl(TIOCSTI)", "ioctl(TIOCLINUX)"]}
    with open(os.path.join(out, "manifest.json"), "w") as m:
        json.dump(manifest, m, indent=2)
        m.write("\n")


if __name__ == "__main__":
    main()
