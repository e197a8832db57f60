"""Confinement beyond rlimits, applied in the sandbox child (Linux, x86_64).

Pure ctypes (no new dependency). In the child, after its rlimits are set and
before the solution runs, `apply_child(scratch)`:

1. chdirs into `scratch` (a fresh folder per child) and points HOME/TMPDIR at it;
2. **Landlock** (filesystem, TCP, signals): every write-type access
   (write, truncate, create, remove, rename/link, device ioctl) and execute is
   denied everywhere except inside `scratch` (and writing to /dev/null);
   reading stays allowed so lazy torch/numpy imports work. With ABI >= 4 TCP
   bind/connect are denied; with ABI >= 6 signals and abstract unix sockets
   are scoped to the child's own domain;
3. drops every capability (the grader may run as root);
4. sets no_new_privs and installs a **seccomp** BPF filter: no execve or
   execveat; no fork, vfork or clone of a new process (clone with
   CLONE_THREAD, i.e. a thread, stays allowed; clone3 answers ENOSYS so libc
   falls back to clone); kill/tgkill/tkill/rt_sig*queueinfo only towards the
   child itself (the rule ends in an explicit deny, so kill(getppid(), ...)
   and kill(-1, ...) fail even where Landlock cannot scope signals); no
   memfd_create/memfd_secret (anonymous files that neither the scratch
   budget nor the address-space limit would count); no socket(); no ptrace, process_vm_*, pidfd_*, io_uring,
   mount/namespace, module, bpf, keyring calls; no setrlimit and no prlimit64
   that sets a limit; no TIOCSTI/TIOCLINUX ioctl; and, since Landlock does
   not cover metadata, no chmod/chown/utime/xattr-setting calls and no
   FS_IOC_SETFLAGS/FSSETXATTR ioctl (files stay readable, never re-moded);
   no renicing or pinning other processes; no System V / POSIX IPC objects
   that would outlive the child; no setpgid/setsid (joining the parent's
   process group would let kill(0, ...) reach the parent); no clearing of
   the parent-death signal (the sandbox sets SIGKILL, so a child never
   outlives its grader).

Each piece that cannot be applied is named in the returned `Confinement`; the
sandbox child sends it on its result stream before running anything, so a
machine where a piece is missing never fails silently open. `probe()` forks a
throwaway child, confines it and *tries* each forbidden action, so it reports
what is actually enforced on this machine, not what should be.
"""
from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import struct
from dataclasses import dataclass, field

CHILD_PIECES = ("filesystem", "processes", "signals", "network", "capabilities", "memfd", "open-files")
WATCHED = ("threads", "deleted-files")  # enforced from outside, by the parent's watchdog reading /proc
PIECES = CHILD_PIECES + WATCHED
OPEN_FILES = 64  # RLIMIT_NOFILE in the child
THREADS = 64  # threads a child may run at once (the watchdog stops it above)
PIECE_TEXT = {
    "filesystem": "no writes outside the child's scratch folder (Landlock)",
    "processes": "no new programs or processes (seccomp)",
    "signals": "no signals to other processes (seccomp, Landlock scope)",
    "network": "no sockets (seccomp, Landlock TCP)",
    "capabilities": "every capability dropped (capset)",
    "memfd": "no anonymous memory files (seccomp: memfd_create)",
    "open-files": f"at most {OPEN_FILES} open files (RLIMIT_NOFILE)",
    "threads": "a thread cap (the watchdog reads /proc/<pid>/stat)",
    "deleted-files": "deleted but open files count against the disk budget (the watchdog reads /proc/<pid>/fd)",
}

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

PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1
NR_SECCOMP = 317
NR_LANDLOCK_CREATE_RULESET, NR_LANDLOCK_ADD_RULE, NR_LANDLOCK_RESTRICT_SELF = 444, 445, 446
NR_CAPSET = 126

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

# Landlock access rights
_LL_EXECUTE = 1 << 0
_LL_WRITE_FILE = 1 << 1
_LL_READ_FILE = 1 << 2
_LL_READ_DIR = 1 << 3
_LL_WRITE_ONLY = sum(1 << b for b in (4, 5, 6, 7, 8, 9, 10, 11, 12))  # remove, make_*
_LL_REFER = 1 << 13
_LL_TRUNCATE = 1 << 14
_LL_IOCTL_DEV = 1 << 15
_LL_NET_BIND_TCP, _LL_NET_CONNECT_TCP = 1 << 0, 1 << 1
_LL_SCOPE_ABSTRACT_UNIX, _LL_SCOPE_SIGNAL = 1 << 0, 1 << 1
_LL_MAKE_CHAR, _LL_MAKE_BLOCK = 1 << 6, 1 << 11


class ConfineError(Exception):
    """A confinement piece could not be applied."""


@dataclass(frozen=True)
class Feature:
    name: str
    enforced: bool
    detail: str


@dataclass
class Confinement:
    """What apply_child() managed: piece -> detail, and what it could not."""

    enforced: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, dict[str, str]]:
        return {"enforced": dict(self.enforced), "missing": dict(self.missing)}


# ----------------------------------------------------------------- ctypes


_libc: ctypes.CDLL | None = None


def _lib() -> ctypes.CDLL:
    global _libc  # noqa: PLW0603 - a loaded library handle, not state
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
        _libc.prctl.restype = ctypes.c_int
    return _libc


def _syscall(nr: int, *args: object) -> int:
    ctypes.set_errno(0)
    res = _lib().syscall(ctypes.c_long(nr), *args)
    if res < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return res


def _prctl(option: int, arg2: int = 0) -> int:
    ctypes.set_errno(0)
    res = _lib().prctl(ctypes.c_int(option), ctypes.c_ulong(arg2), ctypes.c_ulong(0), ctypes.c_ulong(0),
                       ctypes.c_ulong(0))
    if res < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return res


def supported_arch() -> bool:
    return platform.system() == "Linux" and platform.machine() in ("x86_64", "AMD64")


def warm() -> None:
    """Load libc and cache what the kernel offers, in the parent, so each child only applies."""
    _lib()
    landlock_abi()
    seccomp_available()


@functools.lru_cache(maxsize=1)
def landlock_abi() -> int:
    """The Landlock ABI version of this kernel, 0 when unavailable."""
    if not supported_arch():
        return 0
    try:
        return _syscall(NR_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except OSError:
        return 0


@functools.lru_cache(maxsize=1)
def seccomp_available() -> bool:
    if not supported_arch():
        return False
    try:
        with open("/proc/self/status") as fh:
            return any(line.startswith("Seccomp:") for line in fh)
    except OSError:
        return False


# -------------------------------------------------------------- subreaper


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (idempotent)."""
    if platform.system() != "Linux":
        return False
    try:
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        return True
    except (OSError, AttributeError):
        return False


def die_with_parent(parent: int) -> None:
    """In a fresh child: SIGKILL it when its parent dies (the seccomp filter keeps
    it that way), and end it now if the parent is already gone."""
    if platform.system() != "Linux":
        return
    try:
        _prctl(PR_SET_PDEATHSIG, 9)
    except OSError:
        return
    if os.getppid() != parent:
        os._exit(0)


# ---------------------------------------------------------------- Landlock


def _landlock(scratch: str) -> list[str]:
    """Restrict writes to `scratch`. Returns the names of the pieces it covers."""
    abi = landlock_abi()
    if abi < 1:
        raise ConfineError("Landlock is not available in this kernel")
    fs = _LL_EXECUTE | _LL_WRITE_FILE | _LL_WRITE_ONLY
    if abi >= 2:
        fs |= _LL_REFER
    if abi >= 3:
        fs |= _LL_TRUNCATE
    if abi >= 5:
        fs |= _LL_IOCTL_DEV
    net = (_LL_NET_BIND_TCP | _LL_NET_CONNECT_TCP) if abi >= 4 else 0
    scoped = (_LL_SCOPE_ABSTRACT_UNIX | _LL_SCOPE_SIGNAL) if abi >= 6 else 0
    if abi >= 6:
        attr = struct.pack("=QQQ", fs, net, scoped)
    elif abi >= 4:
        attr = struct.pack("=QQ", fs, net)
    else:
        attr = struct.pack("=Q", fs)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _syscall(NR_LANDLOCK_CREATE_RULESET, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    try:
        in_scratch = fs & ~(_LL_EXECUTE | _LL_IOCTL_DEV | _LL_MAKE_CHAR | _LL_MAKE_BLOCK)
        _add_path_rule(ruleset, scratch, in_scratch)
        if os.path.exists("/dev/null"):
            _add_path_rule(ruleset, "/dev/null", fs & (_LL_WRITE_FILE | _LL_TRUNCATE))
        _syscall(NR_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    covers = ["filesystem"]
    if net:
        covers.append("network")
    if scoped:
        covers.append("signals")
    return covers


def _add_path_rule(ruleset: int, path: str, access: int) -> None:
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        rule = ctypes.create_string_buffer(struct.pack("=Qi", access, fd), 12)
        _syscall(NR_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(1), rule, ctypes.c_uint32(0))
    finally:
        os.close(fd)


# ----------------------------------------------------------------- seccomp

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
    p.label("prctl")  # the parent-death signal stays as set
    p.op(_LD_W_ABS, _arg_lo(0))
    p.op(_JEQ_K, PR_SET_PDEATHSIG, "deny", "allow")
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


def apply_seccomp() -> None:
    """Set no_new_privs and install the filter for this process (also usable alone,
    without Landlock). Raises OSError or ConfineError when it cannot."""
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _seccomp(os.getpid())


def _seccomp(pid: int) -> None:
    if not seccomp_available():
        raise ConfineError("seccomp filters are not available here")
    code = seccomp_program(pid)
    n = len(code) // 8
    filt = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = SockFprog(n, ctypes.cast(filt, ctypes.c_void_p))
    _syscall(NR_SECCOMP, ctypes.c_uint(SECCOMP_SET_MODE_FILTER), ctypes.c_uint(SECCOMP_FILTER_FLAG_TSYNC),
             ctypes.byref(prog))


# ------------------------------------------------------------ capabilities


def _drop_capabilities() -> None:
    header = ctypes.create_string_buffer(struct.pack("=Ii", 0x20080522, 0), 8)  # _LINUX_CAPABILITY_VERSION_3
    data = ctypes.create_string_buffer(bytes(24), 24)  # two {effective, permitted, inheritable}, all zero
    _syscall(NR_CAPSET, header, data)


# ------------------------------------------------------------------ child


def apply_child(scratch: str | None = None) -> Confinement:
    """Confine the current (child) process. Never raises: what failed is in `missing`."""
    result = Confinement()
    if not supported_arch():
        for piece in CHILD_PIECES:
            result.missing[piece] = f"not supported on {platform.system()} {platform.machine()}"
        return result
    if scratch:
        os.chdir(scratch)
        os.environ.update(HOME=scratch, TMPDIR=scratch, TMP=scratch, TEMP=scratch)
    covered: list[str] = []
    try:
        if not scratch:
            raise ConfineError("no scratch folder was given")
        covered = _landlock(scratch)
        result.enforced["filesystem"] = "Landlock: writes only inside the scratch folder"
    except (OSError, ConfineError) as exc:
        result.missing["filesystem"] = f"Landlock could not be applied ({exc})"
    try:
        _drop_capabilities()
        result.enforced["capabilities"] = "all dropped"
    except OSError as exc:
        result.missing["capabilities"] = f"capset failed ({exc})"
    try:
        apply_seccomp()
        result.enforced["processes"] = "seccomp: no exec, fork or clone of a process"
        result.enforced["signals"] = "seccomp: signals only to itself"
        result.enforced["network"] = "seccomp: no socket()"
        result.enforced["memfd"] = "seccomp: no memfd_create"
    except (OSError, ConfineError) as exc:
        reason = f"seccomp could not be applied ({exc})"
        result.missing["processes"] = reason
        result.missing["memfd"] = reason
        if "signals" in covered:
            result.enforced["signals"] = "Landlock scope: signals only inside the sandbox"
        else:
            result.missing["signals"] = reason
        if "network" in covered:
            result.enforced["network"] = "Landlock: no TCP bind/connect (other sockets open)"
        else:
            result.missing["network"] = reason
    return result


def limit_open_files(count: int = OPEN_FILES) -> tuple[bool, str]:
    """Set RLIMIT_NOFILE (soft and hard) in this (child) process: (enforced, detail)."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (count, count))
        if resource.getrlimit(resource.RLIMIT_NOFILE) == (count, count):
            return True, f"RLIMIT_NOFILE {count}"
        return False, "RLIMIT_NOFILE did not take"
    except (ImportError, ValueError, OSError) as exc:
        return False, f"RLIMIT_NOFILE could not be set ({exc})"


@functools.lru_cache(maxsize=1)
def watched() -> Confinement:
    """The pieces the parent's watchdog enforces from outside, by reading a
    child's /proc entries: whether this process can read its own the same way."""
    result = Confinement()
    me = os.getpid()
    try:
        with open(f"/proc/{me}/stat", "rb") as fh:
            raw = fh.read(4096)
        int(raw[raw.rfind(b")") + 2:].split()[17])
        result.enforced["threads"] = (f"the watchdog stops a child above {THREADS} threads; kernel backstop "
                                      + ("none for root (RLIMIT_NPROC does not bind it)" if os.geteuid() == 0
                                         else "RLIMIT_NPROC"))
    except (OSError, IndexError, ValueError) as exc:
        result.missing["threads"] = f"/proc/<pid>/stat cannot be read ({exc}); threads are not counted"
    try:
        os.listdir(f"/proc/{me}/fd")
        result.enforced["deleted-files"] = "the watchdog counts deleted files a child holds open or mapped"
    except OSError as exc:
        result.missing["deleted-files"] = (f"/proc/<pid>/fd cannot be read ({exc}); files a child deletes "
                                           "but holds open are not counted against the disk budget")
    return result


# ------------------------------------------------------------------ probe


def probe() -> list[Feature]:
    """What this machine enforces, measured: a throwaway child is confined and
    tries each forbidden action. Also names what the kernel offers."""
    import json

    from grader import scratch as scratch_dir

    abi = landlock_abi()
    kernel = f"kernel {platform.release()}, {platform.machine()}, Landlock ABI {abi or 'none'}, " \
             f"seccomp {'yes' if seccomp_available() else 'no'}"
    outside = scratch_dir.make()  # named like a sandbox's: swept at the next start if this process is killed
    scratch = scratch_dir.make()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 1
        try:
            os.close(r)
            ok, detail = limit_open_files()  # before seccomp, which forbids setting limits
            conf = apply_child(scratch)
            (conf.enforced if ok else conf.missing)["open-files"] = detail
            tried = _try_forbidden(outside, os.getppid())
            os.write(w, json.dumps({"conf": conf.to_dict(), "tried": tried}).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    chunks = []
    while True:
        data = os.read(r, 65536)
        if not data:
            break
        chunks.append(data)
    os.close(r)
    os.waitpid(pid, 0)
    scratch_dir.remove(outside)
    scratch_dir.remove(scratch)
    try:
        got = json.loads(b"".join(chunks))
    except ValueError:
        got = {"conf": {"enforced": {}, "missing": {p: "the probe child crashed" for p in PIECES}}, "tried": {}}
    features = [Feature("kernel", True, kernel)]
    outside_view = watched()
    got["conf"]["enforced"].update(outside_view.enforced)
    got["conf"]["missing"].update(outside_view.missing)
    got["tried"].update({piece: True for piece in outside_view.enforced})
    for piece in PIECES:
        blocked = got["tried"].get(piece)
        applied = piece in got["conf"]["enforced"]
        if applied and blocked:
            features.append(Feature(piece, True, got["conf"]["enforced"][piece]))
        elif applied:
            features.append(Feature(piece, False, f"applied but the probe got through: {PIECE_TEXT[piece]} is NOT enforced"))
        else:
            reason = got["conf"]["missing"].get(piece, "unknown")
            features.append(Feature(piece, False, f"NOT enforced: {reason}"))
    return features


def _try_forbidden(outside: str, parent: int) -> dict[str, bool]:  # pragma: no cover - child only
    """True for each piece whose forbidden action was refused."""
    import socket

    out: dict[str, bool] = {}
    try:
        with open(os.path.join(outside, "canary"), "w") as fh:
            fh.write("x")
        out["filesystem"] = False
    except OSError:
        out["filesystem"] = True
    try:
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
        out["processes"] = False
    except OSError:
        out["processes"] = True
    try:
        os.kill(parent, 0)
        out["signals"] = False
    except OSError:
        out["signals"] = True
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
        out["network"] = False
    except OSError:
        out["network"] = True
    try:
        with open("/proc/self/status") as fh:
            caps = [line.split()[1] for line in fh if line.startswith(("CapEff:", "CapPrm:"))]
        out["capabilities"] = bool(caps) and all(int(c, 16) == 0 for c in caps)
    except OSError:
        out["capabilities"] = False
    try:
        os.close(os.memfd_create("drill-probe"))
        out["memfd"] = False
    except (OSError, AttributeError):
        out["memfd"] = True
    opened = []
    try:
        for _ in range(OPEN_FILES + 8):
            opened.append(os.open("/dev/null", os.O_RDONLY))
        out["open-files"] = False
    except OSError:
        out["open-files"] = True
    finally:
        for fd in opened:
            os.close(fd)
    return out
