"""`drill doctor`: say plainly what the grader's sandbox enforces on this machine,
and whether the rest of what drill needs is there: torch (imported in a child
process, so this one stays torch-free), the editor `:edit` opens ($VISUAL,
then $EDITOR, else vi) and a terminal the editor can use.

The probe forks a throwaway child, confines it exactly as a sandbox child is
confined, and tries each forbidden action (write outside its scratch folder,
fork, signal its parent, open a socket, create a memfd, open more files than
allowed, read a hidden "drill" file and its parent's command line), so what it
prints is measured, not assumed; the pieces the parent's
watchdog enforces from outside (thread cap, deleted-but-open files) are
checked by reading /proc the way the watchdog does. A piece named NOT
enforced here is also a note on every `drill check --json` report. Only the
device section (fake tensors, the gradient case's backward in a forked process,
CUDA) imports torch, inside the command, and it never initialises CUDA.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import typer

from grader.sandbox import confine
from grader.fake.cuda import cuda_problem
from trainer.cli.app import app, no_color
from trainer.text.fold import fold_line, terminal_width
from trainer.text.markup import printable
from trainer.repl.editor import EDITOR_VARIABLES, editor_command

ALWAYS = (
    "a wall-clock deadline per case and per submission, enforced from outside",
    "CPU time (RLIMIT_CPU), address space relative to the child's size (RLIMIT_AS)",
    "a resident-size watchdog, an output cap, a file-size limit (RLIMIT_FSIZE)",
    "stdin closed, every inherited descriptor but the result pipe closed",
    "its own process group, killed as a whole; results as raw bytes, never unpickled",
    "a strict result channel: a forged, out-of-order or malformed frame is the solution's error",
    "in-place changes to the inputs decided by the grader (the inputs live in shared memory)",
    "the reference modules emptied in a child forked from the grader itself (where no zygote serves)",
    "`:try` shapes recorded by the grader as each op returns: the traced code cannot rewrite them",
    "scratch folders removed whatever they hold; stale ones swept at start; SIGTERM/SIGHUP clean up",
    "a grader stopped with Ctrl-Z gives the child back the time it did not run",
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
    features = confine.probe()
    reaper = _subreaper_works()
    pieces = [f for f in features if f.name in confine.PIECES]
    kernel = next((f.detail for f in features if f.name == "kernel"), "")
    missing = [f for f in pieces if not f.enforced]
    machine = machine_checks()
    gpu = _gpu_checks()
    if as_json:
        typer.echo(json.dumps({
            "kernel": kernel,
            "enforced": {f.name: f.detail for f in pieces if f.enforced},
            "not_enforced": {f.name: f.detail for f in missing},
            "orphans_reaped": reaper,
            "zygote": {"enforced": reaper, "detail": _zygote_text(reaper)},
            "always": list(ALWAYS),
            "machine": {c.name: {"ok": c.ok, "detail": c.detail} for c in machine},
            "fake_tensors": {"available": gpu["fake"] is None, "detail": gpu["fake"] or FAKE_OK},
            "cuda": {"available": gpu["cuda"] is None, "detail": gpu["cuda"] or gpu["cuda_name"]},
            "gradient_case": {"available": gpu["gradient"] is None, "detail": gpu["gradient"] or GRADIENT_OK},
        }))
    else:
        say = _folder()
        typer.echo("The grading sandbox on this machine")
        say(f"  {kernel}", "    ")
        for f in pieces:
            _row(say, f.enforced, f.name, f.detail)
        _row(say, reaper, "orphans",
             "processes a solution leaves behind are re-parented to the grader, killed and reaped"
             if reaper else "NOT enforced: cannot become a child subreaper; an escaped process may survive")
        _row(say, reaper, "zygote", _zygote_text(reaper))
        typer.echo("  Always enforced:")
        for line in ALWAYS:
            say(f"    - {line}", "      ")
        typer.echo("Device, memory and gradient checks")
        _row(say, gpu["fake"] is None, "fake tensors", printable(gpu["fake"] or FAKE_OK))
        _row(say, gpu["gradient"] is None, "gradients", printable(gpu["gradient"] or GRADIENT_OK))
        _row(say, gpu["cuda"] is None, "cuda",
             printable(f"{gpu['cuda']} (optional: only drill check --device cuda needs a GPU)" if gpu["cuda"]
                       else f"{gpu['cuda_name']}: drill check --device cuda runs the cases on it"))
        if missing:
            say(f"Not enforced here: {', '.join(f.name for f in missing)}. "
                "Grading still works, but a hostile solution could do what is listed above.")
        else:
            typer.echo("Every confinement piece is enforced.")
        typer.echo("This machine")
        for c in machine:
            _row(say, c.ok, c.name, c.detail)
    if missing or not reaper or not all(c.ok for c in machine if c.required):
        raise typer.Exit(1)


_LABEL = 13  # "  [ yes ] " + the name padded to this width + " "


class _Folder:
    """Print one line folded to the terminal at spaces; continuation lines get `more`."""

    def __init__(self) -> None:
        self.width = terminal_width()

    def __call__(self, text: str, more: str = "") -> None:
        typer.echo("\n".join(fold_line(text, self.width, more=more)))


def _folder() -> _Folder:
    return _Folder()


def _row(say: _Folder, ok: bool, name: str, detail: str) -> None:
    """`  [ yes ] name          detail`, the detail folded under itself."""
    pad = 2 + 7 + 1 + _LABEL + 1
    lines = fold_line(detail, max(20, say.width - pad), more="")
    typer.echo(f"  {_mark(ok)} {name:<{_LABEL}} {lines[0]}")
    for line in lines[1:]:
        typer.echo(" " * pad + line)


class Check:
    def __init__(self, name: str, ok: bool, detail: str, required: bool = False) -> None:
        self.name, self.ok, self.detail, self.required = name, ok, detail, required


def machine_checks() -> list[Check]:
    """torch (required: nothing grades without it), the editor and the terminal (advice)."""
    return [_torch_check(), _editor_check(), _terminal_check()]


def _torch_check() -> Check:
    code = "import torch; print(torch.__version__, torch.cuda.is_available())"
    start = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        return Check("torch", False, "importing torch took over 3 minutes; grading cannot start", True)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return Check("torch", False, f"cannot import torch: {printable(last)[:200]}; install torch (CPU is enough)",
                     True)
    version, cuda = (done.stdout.split() + ["?", "False"])[:2]
    gpu = "a GPU is visible" if cuda == "True" else "CPU only"
    return Check("torch", True, f"torch {printable(version)} imports in {seconds:.1f} s ({gpu})", True)


def _installed_editor() -> str:
    return next((e for e in ("nano", "vim", "vi", "emacs", "micro", "hx") if shutil.which(e)), "")


def _editor_check() -> Check:
    argv = editor_command()
    source = next((n for n in EDITOR_VARIABLES if os.environ.get(n, "").strip()), None)
    named = f"${source} is {printable(' '.join(argv))!r}" if source else "$EDITOR is not set; :edit falls back to vi"
    if not argv:
        return Check("editor", False, f"{named}: it names no command; set $EDITOR{_example()}")
    found = shutil.which(argv[0])
    if found is None:
        return Check("editor", False, f"{named}, but {printable(argv[0])!r} is not on PATH; :edit cannot start "
                     f"it. Set $EDITOR to an editor that is installed{_example()}")
    return Check("editor", True, f"{named} ({found}); :edit opens it")


def _example() -> str:
    found = _installed_editor()
    return f" (e.g. EDITOR={found})" if found else ""


def _terminal_check() -> Check:
    if not sys.stdin.isatty() or not (sys.stdout.isatty() or sys.stderr.isatty()):
        return Check("terminal", False, "not a terminal: solve, warmup and mock need one; check, watch, list work")
    term = os.environ.get("TERM", "")
    fd = 1 if sys.stdout.isatty() else 2
    cols, rows = os.get_terminal_size(fd)
    problems = []
    if not term or term == "dumb":
        problems.append(f"TERM is {term or 'not set'}; set it to your terminal (e.g. xterm-256color)")
    if cols < 60 or rows < 20:
        problems.append(f"{cols}x{rows} is smaller than 60x20; the editor needs at least that")
    encoding = (sys.stdout.encoding or "").lower().replace("-", "")
    if encoding != "utf8":
        problems.append(f"output encoding is {sys.stdout.encoding}; set LANG to a UTF-8 locale")
    if problems:
        return Check("terminal", False, "; ".join(problems))
    return Check("terminal", True, f"TERM={printable(term)}, {cols}x{rows}, UTF-8")


FAKE_OK = ("fake tensors work: every check runs a device case on fake CUDA tensors and measures "
           "memory at the drill's scale sizes, allocating nothing")
GRADIENT_OK = ("a process forked from the grader runs a backward: every drill with a differentiable output "
               "pulls one upstream gradient back through the solution in the sandbox child")


def _gpu_checks() -> dict[str, str | None]:
    """Whether fake tensors work here, whether torch sees a GPU and whether a forked process runs a backward
    (the gradient case) (None: yes; else why not). The one place doctor imports torch; it never
    initialises CUDA (the probe only asks)."""
    from grader.fake import checks as fake  # torch

    cuda = cuda_problem()
    return {"fake": fake.problem(), "cuda": cuda, "cuda_name": "a CUDA device is visible to torch" if cuda is None else "",
            "gradient": fake.backward_problem()}


def _zygote_text(reaper: bool) -> str:
    """What the zygote (grader/sandbox/zygote.py) gives where the grader can be a child subreaper."""
    if reaper:
        return ("children are forked from a process that never loaded a drill: no reference, expected value, "
                "spec or variant in their memory, and its command line, not the grader's")
    return ("NOT enforced: without a child subreaper the children are forked from the grader itself, and "
            "hold a copy of what it loaded (the reference modules emptied, the rest not)")


def _subreaper_works() -> bool:
    """Checked in a throwaway child, so this CLI process keeps its own settings."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os._exit(0 if confine.become_subreaper() else 1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
