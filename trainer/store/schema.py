"""What a drill database holds, and what a file holds beyond or instead of it.

The schema drill creates is built, once per version, by running ``MIGRATIONS`` on an empty
database in memory; a file's ``sqlite_master`` entries (tables, indexes, triggers, views) are
compared with it, their SQL text normalised for white space. So a file an older drill wrote,
which the migrations can still upgrade, matches the schema of its own ``user_version``; a
trigger someone added to a backup (``AFTER INSERT ON attempts BEGIN DELETE FROM attempts``)
does not. Nothing here opens a file or writes: the store (opening progress.db) and the
backups (restore) decide what to do with the answer.
"""
from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from functools import lru_cache

from trainer.store import migrations

# SQLite's own tables (ANALYZE, AUTOINCREMENT) and the indexes behind UNIQUE and PRIMARY KEY:
# no code runs in them, and the autoindexes follow from the table's own SQL, compared already.
_INTERNAL_TABLES = ("sqlite_sequence", "sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4")
_SPACE = re.compile(r"\s+")
_AROUND_PUNCTUATION = re.compile(r"\s*([(),])\s*")


@dataclass(frozen=True)
class Entry:
    """One ``sqlite_master`` row: type, name, the table it belongs to and its normalised SQL."""

    type: str
    name: str
    table: str
    sql: str | None

    def describe(self) -> str:
        owner = f" on {self.table!r}" if self.type in ("index", "trigger") and self.table != self.name else ""
        return f"{self.type} {self.name!r:.60}{owner:.70}"


@dataclass(frozen=True)
class SchemaDiff:
    """How a file's schema differs from drill's at the file's version."""

    foreign: tuple[Entry, ...]  # objects drill never creates (droppable)
    missing: tuple[Entry, ...]  # drill's objects the file lacks
    altered: tuple[Entry, ...]  # drill's names holding something else (the file's entry)

    @property
    def same(self) -> bool:
        return not (self.foreign or self.missing or self.altered)

    def problems(self) -> list[str]:
        """One phrase per difference, the most telling first."""
        return ([f"{e.describe()} that drill did not create" for e in self.foreign]
                + [f"{e.describe()} that is not drill's" for e in self.altered]
                + [f"no {e.describe()}" for e in self.missing])


def normalised(sql: str | None) -> str | None:
    if sql is None:
        return None
    return _AROUND_PUNCTUATION.sub(r"\1", _SPACE.sub(" ", sql)).strip()


def entries(conn: sqlite3.Connection) -> frozenset[Entry]:
    """The file's schema objects, SQLite's internal ones left out."""
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    out = set()
    for kind, name, table, sql in rows:
        name, table = str(name), str(table)
        if (kind == "table" and name in _INTERNAL_TABLES) or \
                (kind == "index" and sql is None and name.startswith("sqlite_autoindex_")):
            continue
        out.add(Entry(str(kind), name, table, normalised(sql)))
    return frozenset(out)


@lru_cache(maxsize=None)
def schema_at(version: int) -> frozenset[Entry]:
    """The schema drill's migrations create at ``version`` (0 to SCHEMA_VERSION)."""
    if not 0 <= version <= migrations.SCHEMA_VERSION:
        raise ValueError(f"no schema version {version}")
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        for target in range(1, version + 1):
            migrations.apply_step(conn, target)
        return entries(conn)
    finally:
        conn.close()


def compare(conn: sqlite3.Connection, version: int) -> SchemaDiff:
    """The file's schema against drill's at ``version``."""
    found = {e.name: e for e in entries(conn)}
    expected = {e.name: e for e in schema_at(version)}
    foreign = tuple(sorted((e for n, e in found.items() if n not in expected), key=_drop_order))
    missing = tuple(sorted((e for n, e in expected.items() if n not in found), key=_drop_order))
    altered = tuple(sorted((found[n] for n in found.keys() & expected.keys() if found[n] != expected[n]),
                           key=_drop_order))
    return SchemaDiff(foreign, missing, altered)


def _drop_order(entry: Entry) -> tuple[int, str]:
    """Triggers and views first (code), then indexes, then tables."""
    return ({"trigger": 0, "view": 1, "index": 2}.get(entry.type, 3), entry.name)


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def drop_statement(entry: Entry) -> str:
    kind = entry.type.upper() if entry.type in ("trigger", "view", "index", "table") else "TABLE"
    return f"DROP {kind} IF EXISTS {quoted(entry.name)}"
