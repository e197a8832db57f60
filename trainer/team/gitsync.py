"""Team results over git (`drill team run --git`, `team board --git`): the shared folder
is a git clone, and git (the real program, through subprocess) is the distributed engine.

Each member writes only their own results file, so two members can never conflict:
``sync`` pulls (rebase) before a run, ``publish`` commits the member's file alone
with a message naming the run and pushes it, and on a rejected push (someone else
pushed meanwhile) pulls with rebase once and pushes again. ``landed`` reads from
``git log`` when each results file's commits reached the clone's history.

Every failure is a ``GitError`` whose message says what is wrong and what to do:
git missing, not a clone, no remote, a pull that cannot rebase, a push refused twice.
"""
from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Sequence

from trainer.clock import EARLIEST, LATEST, from_epoch, minute_text

GIT_TIMEOUT_S = 120  # one git command (a push over a slow network); then it is reported, not waited on


class GitError(Exception):
    """A git step that failed; the message says what to do."""


@dataclass(frozen=True)
class Landed:
    """One commit of a results file: when it landed, who made it and its message. Everything here
    is what a teammate's clone wrote into the history: text to show escaped, a date to place."""

    path: str  # relative to the clone's top
    when: datetime  # the committer date in UTC, clamped to what a datetime holds
    subject: str
    commit: str
    stamp: str = ""  # the committer date as git wrote it (%cI): year 3170843 is shown as it is
    email: str = ""  # the author's email, as that clone's git config had it (%ae)

    @property
    def clamped(self) -> bool:
        """Whether ``when`` is not the commit's date but the nearest a datetime holds."""
        return self.when in (EARLIEST, LATEST)

    def when_text(self) -> str:
        """The date to show: local to the minute, or git's own text when it lies beyond year 9999."""
        return self.stamp[:40] if self.clamped and self.stamp else minute_text(self.when)


def stranger(commits: Sequence[Landed]) -> Landed | None:
    """The newest of a results file's commits (newest first) made by another identity than its
    first commit: whoever first committed a member's file is that member's identity (the email
    their clone's git config gives). None when every commit is theirs. A flag, not a proof:
    git records whatever email a clone is configured with."""
    if not commits:
        return None
    owner = commits[-1].email
    return next((c for c in commits if c.email != owner), None)


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_EDITOR="true", LC_ALL="C")
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, env=env,
                              encoding="utf-8", errors="replace",  # a commit's bytes are anyone's
                              timeout=GIT_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH); install git, or run without --git "
                       "and share the results folder another way") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"`git {' '.join(args[:2])}` did not finish in {GIT_TIMEOUT_S} s (is the remote "
                       f"reachable?); nothing more was tried") from None
    if check and done.returncode != 0:
        raise GitError(f"`git {' '.join(args)}` failed in {root}: {_last_line(done)}")
    return done


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [ln.strip() for ln in (done.stderr + "\n" + done.stdout).splitlines() if ln.strip()]
    useful = ([ln for ln in lines if "rejected" in ln.lower()]
              or [ln for ln in lines if ln.lower().startswith(("fatal", "error"))] or lines)
    return useful[-1] if useful else f"exit status {done.returncode}"


def clone_root(folder: Path) -> Path:
    """The top of the git clone that holds ``folder``; GitError when there is none."""
    folder = folder if folder.is_dir() else folder.parent
    done = _git(folder, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise GitError(f"{folder} is not inside a git clone; clone the team's repository and put the "
                       f"session file there, or run without --git")
    return Path(done.stdout.strip())


def _branch(root: Path) -> str:
    done = _git(root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    if done.returncode != 0:
        raise GitError(f"the clone at {root} is not on a branch (a detached HEAD); `git switch` to the "
                       f"team's branch first")
    return done.stdout.strip()


def _remote(root: Path, branch: str) -> str:
    configured = _git(root, "config", "--get", f"branch.{branch}.remote", check=False).stdout.strip()
    if configured:
        return configured
    remotes = _git(root, "remote").stdout.split()
    if not remotes:
        raise GitError(f"the clone at {root} has no remote to share results through; "
                       f"`git remote add origin URL` (the team's repository), then try again")
    return "origin" if "origin" in remotes else remotes[0]


def _remote_has(root: Path, remote: str, branch: str) -> bool:
    done = _git(root, "ls-remote", "--heads", remote, branch, check=False)
    if done.returncode != 0:
        raise GitError(f"cannot reach the remote {remote!r} from {root}: {_last_line(done)}")
    return bool(done.stdout.strip())


def sync(root: Path) -> str:
    """Pull the team's latest (rebase); returns what happened, in words."""
    branch = _branch(root)
    remote = _remote(root, branch)
    if not _remote_has(root, remote, branch):
        return f"{remote} has no branch {branch} yet: this run makes the first commit"
    # --autostash: a member's results file written but not yet committed (a run killed after a
    # pass) must not stop the pull; `pending` says it, and `--push` commits it
    done = _git(root, "pull", "--rebase", "--autostash", "--quiet", remote, branch, check=False)
    if done.returncode != 0:
        _git(root, "rebase", "--abort", check=False)
        raise GitError(f"cannot pull {remote}/{branch} into {root} with rebase: {_last_line(done)}; "
                       f"sort the clone out (`git status`), then run again")
    return f"pulled {remote}/{branch}"


def publish(root: Path, path: Path, message: str) -> str:
    """Commit ``path`` alone (the member's own results file) with ``message`` and push it; on a
    rejected push, pull with rebase once and push again. Returns what happened, in words."""
    branch = _branch(root)
    remote = _remote(root, branch)
    rel = os.path.relpath(path.resolve(), root.resolve())
    _git(root, "add", "--", rel)
    staged = _git(root, "diff", "--cached", "--quiet", "--", rel, check=False)
    if staged.returncode == 0:
        committed = False  # the file is as the last commit has it
    else:
        done = _git(root, "commit", "--quiet", "-m", message, "--", rel, check=False)
        if done.returncode != 0:
            text = done.stderr + done.stdout
            if "tell me who you are" in text or "auto-detect" in text or "user.email" in text:
                raise GitError(f"git does not know who you are in {root}, so it cannot commit your results "
                               f"(they are written, not committed): `git config user.name NAME` and "
                               f"`git config user.email EMAIL`, then run `drill team run` again")
            raise GitError(f"cannot commit {rel} in {root}: {_last_line(done)}")
        committed = True
    ahead = _git(root, "rev-list", "--count", f"{remote}/{branch}..HEAD", check=False)
    if not committed and ahead.returncode == 0 and ahead.stdout.strip() == "0":
        return f"{rel} unchanged since its last commit; nothing to push"
    first = _git(root, "push", "--quiet", remote, f"HEAD:refs/heads/{branch}", check=False)
    if first.returncode == 0:
        return f"committed {rel} and pushed to {remote}/{branch}"
    if not _rejected(first):
        raise GitError(f"cannot push to {remote} from {root}: {_last_line(first)}; your results are "
                       f"committed in the clone: `git push` when the remote is back")
    sync(root)
    second = _git(root, "push", "--quiet", remote, f"HEAD:refs/heads/{branch}", check=False)
    if second.returncode != 0:
        raise GitError(f"{remote} refused the push twice (someone pushed again while this one was "
                       f"rebasing, or the branch is protected): {_last_line(second)}; your results are "
                       f"committed in {root}: `git pull --rebase && git push` there")
    return f"committed {rel}; the first push was rejected (a teammate pushed first), so it pulled with " \
           f"rebase and pushed again to {remote}/{branch}"


@dataclass(frozen=True)
class Pending:
    """A results file of this clone that the team cannot see yet."""

    path: str  # relative to the clone's top
    state: str  # "not committed" | "committed, not pushed"

    @property
    def name(self) -> str:
        return Path(self.path).name


def pending(root: Path, folder: Path) -> list[Pending]:
    """The results files (``*.json`` in ``folder``) changed here and not committed, or committed
    and not pushed: what a run killed after a pass, or a push that failed, left behind."""
    rel = os.path.relpath(folder.resolve(), root.resolve())
    out: dict[str, Pending] = {}
    status = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", rel, check=False)
    for entry in status.stdout.split("\0"):
        path = entry[3:]
        if len(entry) > 3 and _results_file(path, rel):
            out[path] = Pending(path, "not committed")
    try:
        branch = _branch(root)
        remote = _remote(root, branch)
    except GitError:
        return sorted(out.values(), key=lambda p: p.path)
    known = _git(root, "rev-parse", "--verify", "--quiet", f"{remote}/{branch}", check=False).returncode == 0
    span = f"{remote}/{branch}..HEAD" if known else "HEAD"
    ahead = _git(root, "log", "--format=", "--name-only", "-z", span, "--", rel, check=False)
    if ahead.returncode == 0:
        for path in ahead.stdout.replace("\n", "\0").split("\0"):
            path = path.strip()
            if _results_file(path, rel) and path not in out:
                out[path] = Pending(path, "committed, not pushed")
    return sorted(out.values(), key=lambda p: p.path)


def _results_file(path: str, folder: str) -> bool:
    return path.endswith(".json") and Path(path).parent == Path(folder)


def _rejected(done: subprocess.CompletedProcess[str]) -> bool:
    text = (done.stderr + done.stdout).lower()
    return "rejected" in text or "fetch first" in text or "non-fast-forward" in text


def landed(root: Path, paths: Sequence[Path]) -> dict[str, list[Landed]]:
    """Per results file (its name), its commits newest first, from `git log` of the clone.
    Fields are read as hostile text: NUL-separated, a date git prints beyond year 9999 clamped."""
    out: dict[str, list[Landed]] = {}
    for path in paths:
        rel = os.path.relpath(path.resolve(), root.resolve())
        done = _git(root, "log", "--format=%H%x00%ct%x00%cI%x00%ae%x00%s", "--", rel, check=False)
        if done.returncode != 0:
            continue  # no commits yet (a fresh clone of an empty repository)
        rows = []
        for line in done.stdout.splitlines():
            fields = line.split("\0", 4)
            if len(fields) != 5 or not re.fullmatch(r"-?[0-9]{1,20}", fields[1]):
                continue
            commit, epoch, stamp, email, subject = fields
            rows.append(Landed(rel, from_epoch(int(epoch)), subject, commit, stamp, email))
        out[path.name] = rows
    return out
