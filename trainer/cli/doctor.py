"""`drill doctor`: say plainly what the grader's sandbox enforces on this machine.

The probe forks a throwaway child, confines it exactly as a sandbox child is
confined, and tries each forbidden action (write outside its scratch folder,
fork, signal its parent, open a socket), so what it prints is measured, not
assumed. Grader modules are imported inside the command; the last section
(fake tensors, CUDA) imports torch, and never initialises CUDA.
"""
from __future__ import annotations

import json

import typer

from trainer.cli.app import app, no_color
from trainer.markup import printable

ALWAYS = (
    "a wall-clock deadline per case and per submission, enforced from outside",
    "CPU time (RLIMIT_CPU), address space relative to the child's size (RLIMIT_AS)",
    "a resident-size watchdog, an output cap, a file-size limit (RLIMIT_FSIZE)",
    "stdin closed, every inherited descriptor but the result pipe closed",
    "its own process group, killed as a whole; results as raw bytes, never unpickled",
)


def _mark(ok: bool) -> str:
    text = " yes " if ok else " NO  "
    if no_color():
        return f"[{text}]"
    return typer.style(f"[{text}]", fg="green" if ok else "red", bold=not ok)


@app.command("doctor")
def doctor_command(
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of text."),
) -> None:
    """What the grading sandbox enforces on this machine, and what it does not."""
    from grader import confine

    features = confine.probe()
    reaper = _subreaper_works()
    pieces = [f for f in features if f.name in confine.PIECES]
    kernel = next((f.detail for f in features if f.name == "kernel"), "")
    missing = [f for f in pieces if not f.enforced]
    gpu = _gpu_checks()
    if as_json:
        typer.echo(json.dumps({
            "kernel": kernel,
            "enforced": {f.name: f.detail for f in pieces if f.enforced},
            "not_enforced": {f.name: f.detail for f in missing},
            "orphans_reaped": reaper,
            "always": list(ALWAYS),
            "fake_tensors": {"available": gpu["fake"] is None, "detail": gpu["fake"] or FAKE_OK},
            "cuda": {"available": gpu["cuda"] is None, "detail": gpu["cuda"] or gpu["cuda_name"]},
        }))
    else:
        typer.echo("The grading sandbox on this machine")
        typer.echo(f"  {kernel}")
        for f in pieces:
            typer.echo(f"  {_mark(f.enforced)} {f.name:<13} {f.detail}")
        typer.echo(f"  {_mark(reaper)} {'orphans':<13} "
                   + ("processes a solution leaves behind are re-parented to the grader, killed and reaped"
                      if reaper else "NOT enforced: cannot become a child subreaper; an escaped process may survive"))
        typer.echo("  Always enforced:")
        for line in ALWAYS:
            typer.echo(f"    - {line}")
        typer.echo("Device and memory checks")
        typer.echo(f"  {_mark(gpu['fake'] is None)} {'fake tensors':<13} {printable(gpu['fake'] or FAKE_OK)}")
        typer.echo(f"  {_mark(gpu['cuda'] is None)} {'cuda':<13} "
                   + printable(f"{gpu['cuda']} (optional: only drill check --device cuda needs a GPU)" if gpu["cuda"]
                               else f"{gpu['cuda_name']}: drill check --device cuda runs the cases on it"))
        if missing:
            typer.echo(f"Not enforced here: {', '.join(f.name for f in missing)}. "
                       "Grading still works, but a hostile solution could do what is listed above.")
        else:
            typer.echo("Every confinement piece is enforced.")
    if missing or not reaper:
        raise typer.Exit(1)


FAKE_OK = ("fake tensors work: every check runs a device case on fake CUDA tensors and measures "
           "memory at the drill's scale sizes, allocating nothing")


def _gpu_checks() -> dict[str, str | None]:
    """Whether fake tensors work here, and whether torch sees a GPU (None: yes; else why not).
    The one place doctor imports torch; it never initialises CUDA (the probe only asks)."""
    from grader import fake
    from grader.cuda import cuda_problem

    cuda = cuda_problem()
    return {"fake": fake.problem(), "cuda": cuda, "cuda_name": "a CUDA device is visible to torch" if cuda is None else ""}


def _subreaper_works() -> bool:
    """Checked in a throwaway child, so this CLI process keeps its own settings."""
    import os

    from grader import confine

    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os._exit(0 if confine.become_subreaper() else 1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
