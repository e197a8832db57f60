"""Confinement beyond rlimits, applied in the sandbox child (Linux, x86_64).

Pure ctypes (no new dependency): the calls in grader.sandbox.syscalls, the
Landlock ruleset in grader.sandbox.landlock, the BPF filter in
grader.sandbox.seccomp; this module decides, applies and reports. In the
child, after its rlimits are set and before the solution runs,
`apply_child(scratch)`:

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
import functools
import os
import platform
import struct
from dataclasses import dataclass, field

from grader.sandbox import seccomp
from grader.sandbox.landlock import ReadRules, _landlock, read_rules
from grader.sandbox.syscalls import (
    NR_CAPSET,
    NR_LANDLOCK_CREATE_RULESET,
    PR_SET_CHILD_SUBREAPER,
    PR_SET_NO_NEW_PRIVS,
    PR_SET_PDEATHSIG,
    ConfineError,
    _lib,
    _prctl,
    _syscall,
)

CHILD_PIECES = ("filesystem", "drill-files", "processes", "signals", "network", "capabilities", "memfd", "open-files")
WATCHED = ("threads", "deleted-files")  # enforced from outside, by the parent's watchdog reading /proc
PIECES = CHILD_PIECES + WATCHED
OPEN_FILES = 64  # RLIMIT_NOFILE in the child
THREADS = 64  # threads a child may run at once (the watchdog stops it above)
PIECE_TEXT = {
    "filesystem": "no writes outside the child's scratch folder (Landlock)",
    "drill-files": "the drills' folders (reference, oracle, rounds, samples) and other processes' /proc entries "
                   "unreadable (Landlock)",
    "processes": "no new programs or processes (seccomp)",
    "signals": "no signals to other processes (seccomp, Landlock scope)",
    "network": "no sockets (seccomp, Landlock TCP)",
    "capabilities": "every capability dropped (capset)",
    "memfd": "no anonymous memory files (seccomp: memfd_create)",
    "open-files": f"at most {OPEN_FILES} open files (RLIMIT_NOFILE)",
    "threads": "a thread cap (the watchdog reads /proc/<pid>/stat)",
    "deleted-files": "deleted but open files count against the disk budget (the watchdog reads /proc/<pid>/fd)",
}


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


# ----------------------------------------------------------------- the kernel


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


# ------------------------------------------------------- seccomp, capabilities


def apply_seccomp() -> None:
    """Set no_new_privs and install the filter for this process (also usable alone,
    without Landlock). Raises OSError or ConfineError when it cannot."""
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _seccomp(os.getpid())


def _seccomp(pid: int) -> None:
    if not seccomp_available():
        raise ConfineError("seccomp filters are not available here")
    seccomp.install(pid)


def _drop_capabilities() -> None:
    header = ctypes.create_string_buffer(struct.pack("=Ii", 0x20080522, 0), 8)  # _LINUX_CAPABILITY_VERSION_3
    data = ctypes.create_string_buffer(bytes(24), 24)  # two {effective, permitted, inheritable}, all zero
    _syscall(NR_CAPSET, header, data)


# ------------------------------------------------------------------ child


@functools.lru_cache(maxsize=8)
def reads_for(hidden: tuple[str, ...]) -> ReadRules:
    """The Landlock read grants that hide `hidden` (grader.sandbox.landlock.read_rules), worked out
    once per set in the process that forks the children."""
    return read_rules(hidden)


def apply_child(scratch: str | None = None, hidden: tuple[str, ...] = ()) -> Confinement:
    """Confine the current (child) process; `hidden`: folders and files it must not read (the drills'
    content). Never raises: what failed is in `missing`."""
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
        covered = _landlock(scratch, landlock_abi(), reads_for(tuple(hidden)))
        result.enforced["filesystem"] = "Landlock: writes only inside the scratch folder"
        result.enforced["drill-files"] = "Landlock: the drills' folders and other processes' /proc entries unreadable"
    except (OSError, ConfineError) as exc:
        result.missing["filesystem"] = f"Landlock could not be applied ({exc})"
        result.missing["drill-files"] = (f"Landlock could not be applied ({exc}): a solution can read the drill's "
                                         "reference, rounds and samples, the grader's command line, and, where "
                                         "Yama's ptrace_scope is 0, the grader's memory (/proc/<pid>/mem)")
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

    from grader.sandbox import scratch as scratch_dir

    abi = landlock_abi()
    kernel = f"kernel {platform.release()}, {platform.machine()}, Landlock ABI {abi or 'none'}, " \
             f"seccomp {'yes' if seccomp_available() else 'no'}"
    outside = scratch_dir.make()  # named like a sandbox's: swept at the next start if this process is killed
    scratch = scratch_dir.make()
    hidden = scratch_dir.make()  # stands for a drill's folder
    with open(os.path.join(hidden, "drill.yaml"), "w") as fh:
        fh.write("id: probe\n")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 1
        try:
            os.close(r)
            ok, detail = limit_open_files()  # before seccomp, which forbids setting limits
            conf = apply_child(scratch, (hidden,))
            (conf.enforced if ok else conf.missing)["open-files"] = detail
            tried = _try_forbidden(outside, os.getppid(), hidden)
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
    scratch_dir.remove(hidden)
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


def _try_forbidden(outside: str, parent: int, hidden: str) -> dict[str, bool]:  # pragma: no cover - child only
    """True for each piece whose forbidden action was refused."""
    import socket

    out: dict[str, bool] = {"drill-files": True}
    for path in (os.path.join(hidden, "drill.yaml"), f"/proc/{parent}/cmdline"):
        try:
            with open(path, "rb") as fh:
                fh.read(1)
            out["drill-files"] = False
        except OSError:
            pass
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
