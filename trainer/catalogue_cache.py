"""The parsed catalogue, cached under DRILL_HOME so that `drill list` starts fast.

`load_catalogue()` answers exactly what `grader.catalogue.load_catalogue(roots)`
answers for the trainer's roots (`trainer.paths.drill_roots()`).
The cache is keyed by the path, size and modification time of every spec file,
its reference file and own oracle file beside it, and every module of the grader package (a
changed parser parses again), plus the Python version. Any change, a missing or
unreadable cache, or one that does not load is a miss: the specs are parsed
again and the cache rewritten (atomically; a home that cannot be written just
goes without). Catalogues with broken specs are not cached, so their messages
are always current. The file is unpickled only when this user owns it and
nobody else may write it.
"""
from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from grader.catalogue import Catalogue

CACHE_FILE = "catalogue.pickle"
_MAGIC = "drill-catalogue-2"  # 2: Catalogue lives in grader.catalogue


def _stamp(path: Path) -> tuple[str, int, int] | tuple[str]:
    try:
        st = os.stat(path)
    except OSError:
        return (str(path),)
    return (str(path), st.st_size, st.st_mtime_ns)


def cache_key(files: list[Path]) -> tuple:
    import grader

    package = Path(grader.__file__).parent  # the parser and every module it may lean on
    stamps = [_stamp(p) for p in sorted(package.rglob("*.py"))]  # grader.spec/ too
    for f in files:
        stamps.append(_stamp(f))
        stamps.append(_stamp(f.with_suffix(".py")))
        stamps.append(_stamp(f.with_name(f.stem + ".oracle.py")))  # grader.spec.names.oracle_file: parsed too
    return (_MAGIC, sys.version_info[:3], tuple(stamps))


def cache_path() -> Path:
    from trainer.paths import drill_home

    return drill_home() / "cache" / CACHE_FILE


def load_catalogue() -> Catalogue:
    """grader.catalogue.load_catalogue() for the trainer's roots, through the cache."""
    from grader.catalogue import Catalogue, spec_files
    from grader.catalogue import load_catalogue as parse_all
    from trainer.paths import drill_roots

    roots = drill_roots()
    files = spec_files(roots)
    key = cache_key(files)
    path = cache_path()
    cached = _read(path, key)
    if isinstance(cached, Catalogue):
        return cached
    catalogue = parse_all(roots)
    if not catalogue.errors:
        _write(path, key, catalogue)
    return catalogue


def _trusted(fh: BinaryIO) -> bool:
    """Only a cache file this user owns and nobody else can write is unpickled (a pickle
    can run code when loaded, so a file planted by someone else is parsed around)."""
    st = os.fstat(fh.fileno())
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def _read(path: Path, key: tuple) -> object:
    """Whatever the cache file holds for `key` (the caller checks it is a Catalogue); None when it holds nothing usable."""
    try:
        with open(path, "rb") as fh:
            if not _trusted(fh):
                return None
            stored_key, catalogue = pickle.load(fh)  # noqa: S301 - our own file under DRILL_HOME
    except Exception:  # noqa: BLE001 - missing, unreadable or damaged: parse again
        return None
    return catalogue if stored_key == key else None


def _write(path: Path, key: tuple, catalogue: Catalogue) -> None:
    from trainer.files import write_atomically

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, pickle.dumps((key, catalogue), protocol=pickle.HIGHEST_PROTOCOL))
    except (OSError, pickle.PicklingError):
        pass  # a read-only or full home: no cache, same answer
