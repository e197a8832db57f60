"""The REPL's view of the grader: one small interface, two implementations.

`open_grading()` prefers the long-lived worker process (`grader.worker`,
started in the background at once so the first :submit finds torch
imported); where the worker is not available it falls back to an in-process
grader warmed in a background thread. Tests hand the REPL an
`InProcessGrading` around the one grader they share.

A grade is a `grader.report.Report` (the one verdict model); :try gives the
plain dict of `grader.trace.trace()`.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Protocol

from grader import threads
from grader.report import Report, Smallest, internal_report

if TYPE_CHECKING:
    from grader.engine import Grader  # imports torch: only on first use, in _get


def comments_later(grading: Any) -> bool:
    """Whether `grading` can grade without the shape comments and give them after (both gradings here
    can; a stand-in of the tests may not)."""
    return callable(getattr(grading, "shape_comments", None))


def has_comments(source: str) -> bool:
    """Whether `source` has any shape comment (grader.judge.shape_comments): only then is there a trace to ask for."""
    from grader.judge.shape_comments import comments

    return bool(comments(source))


def variant_of(spec: Any) -> dict[str, Any]:
    """`variant=` for a Grading call when `spec` is under a variant (Spec.under), else nothing,
    so that a grading that predates variants is called as before for the default."""
    variant = getattr(spec, "variant", None)
    return {"variant": dict(variant)} if variant else {}


class Grading(Protocol):
    """`variant` everywhere: the drill's non-default variant choices (grader.spec.variants); None or {}
    is the contract as written."""

    def grade(self, drill_id: str, source: str, filename: str = "<buffer>", seed: int | None = None,
              timeout: float = 120, variant: dict[str, str] | None = None) -> Report: ...

    def trace(self, drill_id: str, source: str, filename: str = "<buffer>",
              at: Smallest | None = None, seed: int | None = None,
              variant: dict[str, str] | None = None) -> dict[str, Any]: ...

    def smallest(self, report: Report, source: str, filename: str = "<buffer>") -> Smallest | None:
        """The smallest failing sizes of the case `report` shows; None when there is nothing to say."""

    def case_hash(self, drill_id: str, seed: int, variant: dict[str, str] | None = None) -> str | None:
        """grader.cases.case_hash of the cases `drill_id` is graded on with `seed` (a team
        result carries it); None when the grader cannot say."""

    # Both gradings below also take `comments=False` in `grade` (the report without its shape comments,
    # which cost a traced run of their own) and answer `shape_comments(drill_id, source, filename, seed,
    # variant)` (those comments on their own, None when the grader cannot say): the REPL shows the verdict
    # first and the comments after it (comments_later).

    def close(self) -> None: ...

    def cancel(self) -> None:
        """Stop the grade or trace in flight (Esc in the REPL); its answer is thrown away."""


class InProcessGrading:
    """Grades in this process (torch imported on first use, or at once with warm=True)."""

    def __init__(self, grader: Grader | None = None, warm: bool = False):
        self._grader = grader
        self._lock = threading.Lock()
        self._working = threading.Lock()
        if warm and grader is None:
            threads.start(self._get, "grader-warm-up")

    def _get(self) -> Grader:
        with self._lock:
            if self._grader is None:
                from grader.engine import Grader

                self._grader = Grader()
            return self._grader

    def grade(self, drill_id: str, source: str, filename: str = "<buffer>", seed: int | None = None,
              timeout: float = 120, variant: dict[str, str] | None = None, comments: bool = True) -> Report:
        try:
            grader = self._get()
            with self._working:
                return grader.grade(drill_id, source, filename, seed, variant=variant, comments=comments)
        except Exception as exc:  # noqa: BLE001 - the grader's fault, never the person's
            return internal_report(drill_id, seed, f"the grader failed: {type(exc).__name__}: {exc}")

    def shape_comments(self, drill_id: str, source: str, filename: str = "<buffer>", seed: int | None = None,
                       variant: dict[str, str] | None = None) -> list[dict[str, Any]] | None:
        try:
            grader = self._get()
            with self._working:
                return grader.shape_comments(drill_id, source, filename, seed if seed is not None else 1, variant)
        except Exception:  # noqa: BLE001 - an extra after the verdict: nothing to say
            return None

    def case_hash(self, drill_id: str, seed: int, variant: dict[str, str] | None = None) -> str | None:
        """grader.cases.case_hash of the cases ``drill_id`` is graded on with ``seed``."""
        from grader.cases.case_hash import case_hash

        try:
            grader = self._get()
            return case_hash(grader.prepared(grader.spec(drill_id, variant), seed))
        except Exception:  # noqa: BLE001 - unknown is an answer; the caller records None
            return None

    def smallest(self, report: Report, source: str, filename: str = "<buffer>") -> Smallest | None:
        try:
            grader = self._get()
            with self._working:  # one sandbox job at a time: a grade waits for the search's budget
                return grader.smallest(report, source, filename)
        except Exception:  # noqa: BLE001 - an extra: nothing to say
            return None

    def trace(self, drill_id: str, source: str, filename: str = "<buffer>",
              at: Smallest | None = None, seed: int | None = None,
              variant: dict[str, str] | None = None) -> dict[str, Any]:
        from grader.trace import trace

        try:
            return trace(self._get(), drill_id, source, filename, at=at, variant=variant,
                         seed=seed if seed is not None else 1)  # trace's own default seed
        except Exception as exc:  # noqa: BLE001
            return {"drill": drill_id, "dims": {}, "calls": [], "error": f"the tracer failed: {exc}"}

    def close(self) -> None:
        pass

    def cancel(self) -> None:
        """In-process work cannot be stopped midway; the REPL stops waiting for it and the
        case's own time limit ends it."""


class WorkerGrading:
    """Wraps grader.worker.WorkerClient; its process starts (and imports torch) at once."""

    def __init__(self) -> None:
        from grader.worker import WorkerClient

        self._client = WorkerClient()
        self._lock = threading.Lock()

    def grade(self, drill_id: str, source: str, filename: str = "<buffer>", seed: int | None = None,
              timeout: float = 120, variant: dict[str, str] | None = None, comments: bool = True) -> Report:
        with self._lock:
            try:
                return self._client.grade(drill_id, source, filename=filename, seed=seed, timeout=timeout,
                                          variant=variant, comments=comments)
            except Exception as exc:  # noqa: BLE001
                return internal_report(drill_id, seed, f"the grader worker failed: {exc}")

    def shape_comments(self, drill_id: str, source: str, filename: str = "<buffer>", seed: int | None = None,
                       variant: dict[str, str] | None = None) -> list[dict[str, Any]] | None:
        with self._lock:
            try:
                return self._client.shape_comments(drill_id, source, filename, seed, variant=variant)
            except Exception:  # noqa: BLE001 - an extra after the verdict: nothing to say
                return None

    def case_hash(self, drill_id: str, seed: int, variant: dict[str, str] | None = None) -> str | None:
        with self._lock:
            try:
                return self._client.case_hash(drill_id, seed, variant=variant)
            except Exception:  # noqa: BLE001
                return None

    def smallest(self, report: Report, source: str, filename: str = "<buffer>") -> Smallest | None:
        with self._lock:
            try:
                return self._client.smallest(report, source, filename)
            except Exception:  # noqa: BLE001 - an extra: nothing to say
                return None

    def trace(self, drill_id: str, source: str, filename: str = "<buffer>",
              at: Smallest | None = None, seed: int | None = None,
              variant: dict[str, str] | None = None) -> dict[str, Any]:
        with self._lock:
            try:
                return dict(self._client.trace(drill_id, source, filename, at=at, seed=seed, variant=variant))
            except Exception as exc:  # noqa: BLE001
                return {"drill": drill_id, "dims": {}, "calls": [], "error": f"the grader worker failed: {exc}"}

    def close(self) -> None:
        try:
            self._client.close()
        except Exception:  # noqa: BLE001, S110 - a worker that will not close is already gone to us
            pass

    def cancel(self) -> None:
        """A fresh worker takes over at once (importing torch in the background); the busy
        one is killed, so the request waiting on it ends with an error nobody reads."""
        from grader.worker import WorkerClient

        old, self._client = self._client, WorkerClient()
        try:
            old.close()
        except Exception:  # noqa: BLE001, S110 - the busy worker is dropped either way
            pass


def open_grading() -> Grading:
    """The worker when it is installed, else an in-process grader warming up in a thread."""
    try:
        return WorkerGrading()
    except (ImportError, OSError):  # no worker module, or it could not be started
        return InProcessGrading(warm=True)
