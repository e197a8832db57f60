"""The seccomp filter of a sandbox child: which system calls it may make.

A classic-BPF program, assembled here (`seccomp_program`) and installed by
`install`; grader.sandbox.confine decides when (after Landlock and dropping
capabilities) and reports what could not be applied. See confine's
docstring for what the filter forbids and why.
"""
from __future__ import annotations

import ctypes
import errno
import struct

from grader.sandbox.syscalls import NR_SECCOMP, PR_SET_DUMPABLE, PR_SET_PDEATHSIG, ConfineError, _syscall

# x86_64 syscall numbers
_NR = {
    "ioctl": 16, "prctl": 157, "socket": 41, "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "kill": 62,
    "ptrace": 101, "capset": 126, "rt_sigqueueinfo": 129, "uselib": 134, "iopl": 172, "ioperm": 173,
    "setrlimit": 160, "chroot": 161, "acct": 163, "settimeofday": 164, "mount": 165, "umount2": 166,
    "swapon": 167, "swapoff": 168, "reboot": 169, "sethostname": 170, "setdomainname": 171,
    "init_module": 175, "delete_module": 176, "quotactl": 179, "pivot_root": 155, "tkill": 200,
    "clock_settime": 227, "tgkill": 234, "kexec_load": 246, "add_key": 248, "request_key": 249, "keyctl": 250,
    "migrate_pages": 256, "unshare": 272, "move_pages": 279, "rt_tgsigqueueinfo": 297, "perf_event_open": 298,
    "prlimit64": 302, "name_to_handle_at": 303, "open_by_handle_at": 304, "clock_adjtime": 305, "setns": 308,
    "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "finit_module": 313,
    "kexec_file_load": 320, "bpf": 321, "execveat": 322, "userfaultfd": 323, "pidfd_send_signal": 424,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "pidfd_open": 434, "clone3": 435,
    "pidfd_getfd": 438, "process_madvise": 440,
    # anonymous files: memory the resident-size watchdog and the scratch budget would not see
    "memfd_create": 319, "memfd_secret": 447,
    # metadata changes, which Landlock does not cover
    "chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93, "lchown": 94, "utime": 132, "setxattr": 188,
    "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199,
    "utimes": 235, "fchownat": 260, "futimesat": 261, "fchmodat": 268, "utimensat": 280, "fchmodat2": 452,
    "setxattrat": 463, "removexattrat": 466,
    # other processes' scheduling, and IPC objects that outlive the child
    "setpriority": 141, "sched_setparam": 142, "sched_setscheduler": 144, "sched_setaffinity": 203,
    "ioprio_set": 251, "sched_setattr": 314, "shmget": 29, "semget": 64, "msgget": 68, "mq_open": 240,
    # joining the parent's process group would make kill(0, ...) reach it
    "setpgid": 109, "setsid": 112,
}
_METADATA = ("chmod", "fchmod", "chown", "fchown", "lchown", "utime", "setxattr", "lsetxattr", "fsetxattr",
             "removexattr", "lremovexattr", "fremovexattr", "utimes", "fchownat", "futimesat", "fchmodat",
             "utimensat", "fchmodat2", "setxattrat", "removexattrat")
_LASTING = ("setpriority", "sched_setparam", "sched_setscheduler", "ioprio_set", "sched_setattr", "shmget",
            "semget", "msgget", "mq_open", "setpgid", "setsid")
_DENIED = (
    "fork", "vfork", "execve", "execveat", "socket", "ptrace", "capset", "setrlimit", "uselib", "iopl", "ioperm",
    "chroot", "acct", "settimeofday", "mount", "umount2", "swapon", "swapoff", "reboot", "sethostname",
    "setdomainname", "init_module", "delete_module", "finit_module", "quotactl", "pivot_root", "clock_settime",
    "clock_adjtime", "kexec_load", "kexec_file_load", "add_key", "request_key", "keyctl", "migrate_pages",
    "move_pages", "unshare", "setns", "perf_event_open", "name_to_handle_at", "open_by_handle_at",
    "process_vm_readv", "process_vm_writev", "kcmp", "bpf", "userfaultfd", "pidfd_send_signal", "pidfd_open",
    "pidfd_getfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "process_madvise",
    "memfd_create", "memfd_secret",
) + _METADATA + _LASTING
_SELF_SIGNAL = ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")

AUDIT_ARCH_X86_64 = 0xC000003E
CLONE_THREAD = 0x00010000
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR = 0x40086602, 0x401C5820  # chattr: file flags on any readable file

SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06


class _Bpf:
    """A tiny classic-BPF assembler with labels."""

    def __init__(self) -> None:
        self.code: list[tuple[int, object, object, int]] = []
        self.labels: dict[str, int] = {}

    def op(self, code: int, k: int, jt: object = 0, jf: object = 0) -> None:
        self.code.append((code, jt, jf, k & 0xFFFFFFFF))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def assemble(self) -> bytes:
        out = bytearray()
        for i, (code, jt, jf, k) in enumerate(self.code):
            out += struct.pack("=HBBI", code, self._off(i, jt), self._off(i, jf), k)
        return bytes(out)

    def _off(self, i: int, target: object) -> int:
        if isinstance(target, int):
            return target
        off = self.labels[str(target)] - (i + 1)
        if not 0 <= off <= 255:
            raise ConfineError("seccomp program jump out of range")
        return off


def _arg_lo(i: int) -> int:
    return 16 + 8 * i


def seccomp_program(pid: int) -> bytes:
    """The filter for a child whose pid is `pid` (signals only to itself)."""
    p = _Bpf()
    deny = SECCOMP_RET_ERRNO | errno.EPERM
    p.op(_LD_W_ABS, 4)  # arch
    p.op(_JEQ_K, AUDIT_ARCH_X86_64, 1, 0)
    p.op(_RET_K, SECCOMP_RET_KILL_PROCESS)
    p.op(_LD_W_ABS, 0)  # syscall number
    p.op(_JGE_K, 0x40000000, "deny", 0)  # x32 ABI
    for name in _DENIED:
        p.op(_JEQ_K, _NR[name], "deny", 0)
    p.op(_JEQ_K, _NR["clone3"], "enosys", 0)
    p.op(_JEQ_K, _NR["clone"], "clone", 0)
    p.op(_JEQ_K, _NR["prlimit64"], "prlimit", 0)
    p.op(_JEQ_K, _NR["ioctl"], "ioctl", 0)
    p.op(_JEQ_K, _NR["kill"], "kill", 0)
    p.op(_JEQ_K, _NR["sched_setaffinity"], "self_or_zero", 0)
    p.op(_JEQ_K, _NR["prctl"], "prctl", 0)
    for name in _SELF_SIGNAL[1:]:
        p.op(_JEQ_K, _NR[name], "self_signal", 0)
    p.op(_RET_K, SECCOMP_RET_ALLOW)
    p.label("clone")
    p.op(_LD_W_ABS, _arg_lo(0))
    p.op(_JSET_K, CLONE_THREAD, "allow", "deny")
    p.label("prlimit")  # reading a limit is fine, setting one is not
    p.op(_LD_W_ABS, _arg_lo(2))
    p.op(_JEQ_K, 0, 0, "deny")
    p.op(_LD_W_ABS, _arg_lo(2) + 4)
    p.op(_JEQ_K, 0, "allow", "deny")
    p.label("ioctl")
    p.op(_LD_W_ABS, _arg_lo(1))
    p.op(_JEQ_K, TIOCSTI, "deny", 0)
    p.op(_JEQ_K, FS_IOC_SETFLAGS, "deny", 0)
    p.op(_JEQ_K, FS_IOC_FSSETXATTR, "deny", 0)
    p.op(_JEQ_K, TIOCLINUX, "deny", "allow")
    # every rule below ends in an explicit allow or deny: none falls through into the next
    p.label("kill")  # kill(0 | pid | -pid, sig): its own process group or itself, nothing else
    p.op(_LD_W_ABS, _arg_lo(0))
    p.op(_JEQ_K, 0, "allow", 0)
    p.op(_JEQ_K, pid, "allow", 0)
    p.op(_JEQ_K, (-pid) & 0xFFFFFFFF, "allow", "deny")
    p.label("prctl")  # the parent-death signal stays as set; the watchdog's view of /proc/<pid> stays open
    p.op(_LD_W_ABS, _arg_lo(0))
    p.op(_JEQ_K, PR_SET_PDEATHSIG, "deny", 0)
    p.op(_JEQ_K, PR_SET_DUMPABLE, "deny", "allow")
    p.label("self_or_zero")  # sched_setaffinity(0 | pid, ...)
    p.op(_LD_W_ABS, _arg_lo(0))
    p.op(_JEQ_K, 0, "allow", 0)
    p.op(_JEQ_K, pid, "allow", "deny")
    p.label("self_signal")  # first argument is the target (t)gid
    p.op(_LD_W_ABS, _arg_lo(0))
    p.op(_JEQ_K, pid, "allow", "deny")
    p.label("allow")
    p.op(_RET_K, SECCOMP_RET_ALLOW)
    p.label("deny")
    p.op(_RET_K, deny)
    p.label("enosys")
    p.op(_RET_K, SECCOMP_RET_ERRNO | errno.ENOSYS)
    return p.assemble()


def install(pid: int) -> None:
    """Install the filter for this process, whose pid is `pid` (no_new_privs already set)."""
    code = seccomp_program(pid)
    n = len(code) // 8
    filt = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = SockFprog(n, ctypes.cast(filt, ctypes.c_void_p))
    _syscall(NR_SECCOMP, ctypes.c_uint(SECCOMP_SET_MODE_FILTER), ctypes.c_uint(SECCOMP_FILTER_FLAG_TSYNC),
             ctypes.byref(prog))
