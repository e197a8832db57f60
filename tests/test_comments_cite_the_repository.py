"""Comments and docstrings cite only what a reader of the repository can open: the
contracts live in docs/ (docs/CLI.md, docs/DRILLS.md, docs/ARCHITECTURE.md) and are
cited by that path, never as a bare "CLI.md" or an issue number nobody can follow."""
from __future__ import annotations

import re

from tests.paths import REPO

BARE_DOC = re.compile(r"(?<![\w/.-])(CLI|DRILLS|ARCHITECTURE)\.md\b")
ISSUE = re.compile(r"\bissue\s*#?\d+", re.IGNORECASE)
DOCS = ("CLI.md", "DRILLS.md", "ARCHITECTURE.md")


def _offenders() -> list[str]:
    out = []
    for top in ("grader", "trainer"):
        for path in sorted((REPO / top).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if BARE_DOC.search(line) or ISSUE.search(line):
                    out.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    return out


def test_code_cites_docs_by_their_path_and_no_issue_numbers():
    offenders = _offenders()
    assert not offenders, "cite docs/<NAME>.md, or say the thing itself:\n" + "\n".join(offenders)


def test_the_cited_docs_are_in_the_repository():
    for name in DOCS:
        assert (REPO / "docs" / name).is_file(), name
    cited = set()
    for top in ("grader", "trainer"):
        for path in (REPO / top).rglob("*.py"):
            cited.update(re.findall(r"docs/([\w.-]+\.md)", path.read_text(encoding="utf-8")))
    missing = sorted(name for name in cited if not (REPO / "docs" / name).is_file())
    assert not missing, missing


def test_the_patterns_catch_what_they_mean():
    assert BARE_DOC.search("the verdict model (CLI.md)") and not BARE_DOC.search("(docs/CLI.md)")
    assert ISSUE.search("a fix (issue 14)") and ISSUE.search("Issue #3") and not ISSUE.search("an issue with it")
