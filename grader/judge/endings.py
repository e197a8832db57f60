"""How a sandbox child ended, as one value, and the one table mapping it to (verdict, message).

`ending_of(prep, call, outcome, limits)` names why a call has no result (a deadline, a
watchdog, a signal, an exit, a broken channel...); `run_endings(outcome)` names what
the run did besides its calls' results (threads, disk, the channel), even when every call
answered. `TABLE` gives each ending its verdict and its sentence; `told(...)` fills it in.
grader.engine is the only caller; nothing else words these endings.
"""
from __future__ import annotations

from enum import Enum
from typing import Any

from grader.report import Verdict, bytes_text

SIGNALS = {11: "SIGSEGV (segmentation fault)", 6: "SIGABRT (abort)", 7: "SIGBUS", 8: "SIGFPE", 4: "SIGILL",
           9: "SIGKILL", 24: "SIGXCPU (CPU time limit)", 25: "SIGXFSZ (file size limit)", 15: "SIGTERM"}
SIGXCPU = 24


class Ending(str, Enum):
    TIMEOUT = "timeout"  # this case ran past its deadline
    TIMEOUT_TOTAL = "timeout_total"  # the whole submission ran past its deadline during this case
    TIMEOUT_LOADING = "timeout_loading"  # the file never finished loading
    STOPPED_EARLIER = "stopped_earlier"  # stopped at an earlier case: this one never ran
    OUTPUT = "output"  # printed past the output cap
    DISK = "disk"  # wrote past the scratch budget
    BANNED = "banned"  # called a banned function (the child stopped there)
    MEMORY = "memory"  # the resident-size watchdog stopped it during this case
    MEMORY_EARLIER = "memory_earlier"  # ... during another case
    THREADS = "threads"  # ran more threads than allowed
    CHANNEL = "channel"  # broke the result channel
    HIDDEN = "hidden"  # made its process unreadable to the grader (PR_SET_DUMPABLE), hiding the files it holds
    TAMPERED = "tampered"  # replaced the grader's own code in its process
    CPU_LIMIT = "cpu_limit"  # SIGXCPU
    CRASHED = "crashed"  # killed by a signal during this case
    CRASHED_EARLIER = "crashed_earlier"  # ... during another case
    EXITED = "exited"  # ended the process itself (exit(), os._exit)
    NO_RESULT = "no_result"  # none of the above, and still no result


TABLE: dict[Ending, tuple[Verdict, str]] = {
    Ending.TIMEOUT: (Verdict.TIMEOUT, "case {case} ran longer than {seconds:g} s and was stopped "
                                      "(an endless loop, or a blocking read?)"),
    Ending.TIMEOUT_TOTAL: (Verdict.TIMEOUT, "the whole submission ran longer than {total:g} s and was stopped during "
                                            "case {case}; every case must also finish within {per_case:g} s"),
    Ending.TIMEOUT_LOADING: (Verdict.TIMEOUT, "the file did not finish loading within {per_case:g} s"),
    Ending.STOPPED_EARLIER: (Verdict.TIMEOUT, "not run: the submission was stopped at an earlier case"),
    Ending.OUTPUT: (Verdict.OUTPUT, "printed more than {output_kib} KiB; remove the prints from the loop"),
    Ending.DISK: (Verdict.OUTPUT, "wrote more than {disk_mib} MiB (or {disk_files} files) to disk and was stopped "
                                  "(deleted files it still held count too); keep results in memory"),
    Ending.BANNED: (Verdict.BANNED, "called {banned}, which this drill bans"),
    Ending.MEMORY: (Verdict.MEMORY, "used {peak} of resident memory (more than the {allowed} allowed) {running} "
                                    "and was stopped"),
    Ending.MEMORY_EARLIER: (Verdict.MEMORY, "not run: the solution used {peak} of resident memory (more than the "
                                            "{allowed} allowed) {running} and was stopped"),
    Ending.THREADS: (Verdict.MEMORY, "ran {threads_peak} threads at once{where} (more than the {threads} allowed) "
                                     "and was stopped; do not start threads"),
    Ending.CHANNEL: (Verdict.ERROR, "the solution broke the result channel ({channel}); "
                                    "do not write to file descriptor 3"),
    Ending.HIDDEN: (Verdict.ERROR, "made its process unreadable to the grader (prctl PR_SET_DUMPABLE), which hides "
                                   "the files it holds, and was stopped; do not change the process's settings"),
    Ending.TAMPERED: (Verdict.ERROR, "replaced the grader's own code in its process ({tampered}), so what the sandbox "
                                     "reports cannot be trusted; do not patch the grader"),
    Ending.CPU_LIMIT: (Verdict.TIMEOUT, "used more CPU time than allowed ({signal})"),
    Ending.CRASHED: (Verdict.ERROR, "the process crashed with {signal} {running} (deep recursion or ctypes?)"),
    Ending.CRASHED_EARLIER: (Verdict.ERROR, "the process crashed with {signal} {running}; this case did not run"),
    Ending.EXITED: (Verdict.ERROR, "the solution ended the process (exit status {exit_status}) before case {case} "
                                   "finished; do not call os._exit or exit()"),
    Ending.NO_RESULT: (Verdict.ERROR, "no result came back for this case"),
}


def told(ending: Ending, outcome: Any, limits: Any, case: str = "", running: str = "", where: str = "",
         channel: str | None = None) -> tuple[Verdict, str]:
    """The ending's (verdict, message), its blanks filled from the outcome and the limits."""
    verdict, text = TABLE[ending]
    sig = outcome.signal
    return verdict, text.format(
        case=case, running=running, where=where, seconds=outcome.timeout_seconds, total=limits.total_timeout,
        per_case=limits.case_timeout, output_kib=limits.output_bytes // 1024, disk_mib=limits.scratch_bytes // 2**20,
        disk_files=limits.scratch_files, banned=outcome.banned, peak=bytes_text(outcome.memory_peak),
        allowed=bytes_text(limits.rss_bytes or limits.memory_bytes), threads_peak=outcome.threads_peak,
        threads=limits.threads, channel=channel if channel is not None else outcome.protocol_error,
        signal=SIGNALS.get(sig, f"signal {sig}") if sig is not None else "", exit_status=outcome.exit_status,
        tampered=", ".join(list(outcome.tampered or [])[:3]))


def ending_of(call_index: int, outcome: Any, limits: Any, here: bool) -> Ending:
    """Why call `call_index` has no result; `here`: the child was running this call when it ended."""
    stopped = outcome.timeout_call
    if stopped is not None:
        if stopped == call_index:
            total = outcome.timeout_seconds == limits.total_timeout != limits.case_timeout
            return Ending.TIMEOUT_TOTAL if total else Ending.TIMEOUT
        return Ending.TIMEOUT_LOADING if stopped == -1 else Ending.STOPPED_EARLIER
    if outcome.output_overflow:
        return Ending.OUTPUT
    if outcome.disk_overflow:
        return Ending.DISK
    if outcome.hidden_fds:
        return Ending.HIDDEN
    if outcome.banned:
        return Ending.BANNED
    if outcome.memory_killed:
        return Ending.MEMORY if here else Ending.MEMORY_EARLIER
    if outcome.threads_killed:
        return Ending.THREADS
    if outcome.protocol_error:
        return Ending.CHANNEL
    if outcome.signal is not None:
        if outcome.signal == SIGXCPU:
            return Ending.CPU_LIMIT
        return Ending.CRASHED if here else Ending.CRASHED_EARLIER
    if outcome.exit_status is not None or outcome.finished is False:
        return Ending.EXITED
    return Ending.NO_RESULT


def run_endings(outcome: Any) -> list[Ending]:
    """What the run did besides its calls' results (still held threads or deleted files at the
    end, a broken result channel): run-level endings, even when every call answered."""
    found = [(outcome.threads_killed, Ending.THREADS), (outcome.disk_overflow, Ending.DISK),
             (outcome.hidden_fds, Ending.HIDDEN), (outcome.tampered, Ending.TAMPERED),
             (outcome.protocol_error, Ending.CHANNEL)]
    return [ending for present, ending in found if present]
