"""No import circles in grader/ or trainer/, and the layer order they keep.

The graph is read from the source with `ast`, every import included: those at the
top of a module and those inside functions (a lazy import that closes a circle is
still a circle, it only fails later). Imports under `if TYPE_CHECKING:` never run
and are left out. Torch-free and quick: nothing is imported.
"""
from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import REPO

PACKAGES = ("grader", "trainer")


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top in PACKAGES:
        for path in sorted((REPO / top).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(tree: ast.AST, here: str, is_package: bool) -> list[tuple[str, list[str]]]:
    """(module, names) for each import statement that can run, relative ones resolved."""
    out: list[tuple[str, list[str]]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = here.split(".") if is_package else here.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            out.append((base, [alias.name for alias in node.names]))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def import_graph() -> dict[str, set[str]]:
    """module -> the modules of grader/ and trainer/ that importing it may run."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for target, names in _imported(tree, name, path.name == "__init__.py"):
            if target.split(".")[0] not in PACKAGES:
                continue
            hits = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
            if target in modules and (len(hits) < len(names) or not names):
                hits.append(target)  # `from pkg import name` runs pkg itself for a non-module name
            for hit in hits:
                # the packages above a module run before it, unless the importer sits inside them;
                # a package named outright runs, wherever the importer sits
                parts = hit.split(".")
                for i in range(1, len(parts)):
                    step = ".".join(parts[:i])
                    if step in modules and step != name and not name.startswith(step + "."):
                        graph[name].add(step)
                if hit != name:
                    graph[name].add(hit)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = walk(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = walk(start)
            if found:
                return found
    return None


def test_there_is_no_import_circle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


# Who may import whom. Each part of grader/ and trainer/ (a package or a top-level module)
# and the parts it may import besides itself; a key naming one module inside a part says
# what only that module reaches for (the longest key that fits a module applies). This is
# the layering as it is, written down: a new edge is a decision, made here.
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    # grader/, bottom up: it never imports trainer/
    "grader": (),
    "grader.errors": (),
    "grader.report": (),
    "grader.dims": (),
    "grader.transport": (),
    "grader.roomy": (),  # room on the frame stack for deep work, where a process or thread starts
    "grader.threads": ("grader.roomy",),  # helper threads that leave the signals to the main thread
    "grader.oracles": ("grader.spec",),  # the torch-free list of shared oracle names (grader.spec.names)
    "grader.spec": ("grader.errors", "grader.dims", "grader.report"),
    # the parser reads two vocabularies kept beside the code that uses them; both import nothing
    "grader.spec.parts": ("grader.errors", "grader.dims", "grader.report", "grader.judge.invariant_kinds",
                          "grader.judge.answers"),
    "grader.catalogue": ("grader.errors", "grader.spec"),
    "grader.cases": ("grader.dims", "grader.oracles", "grader.spec", "grader.transport"),
    "grader.judge": ("grader.cases", "grader.dims", "grader.fake", "grader.report", "grader.spec", "grader.transport"),
    "grader.bans": ("grader.cases",),
    "grader.fake": ("grader.cases", "grader.dims", "grader.report"),
    "grader.sandbox": ("grader.bans", "grader.cases", "grader.fake", "grader.report", "grader.roomy", "grader.threads",
                       "grader.transport"),
    "grader.trace": ("grader.cases", "grader.dims", "grader.fake", "grader.judge", "grader.report",
                     "grader.sandbox"),
    "grader.engine": ("grader.bans", "grader.cases", "grader.catalogue", "grader.dims", "grader.errors", "grader.fake",
                      "grader.judge", "grader.report", "grader.sandbox", "grader.spec", "grader.trace"),
    "grader.worker": ("grader.cases", "grader.engine", "grader.errors", "grader.report", "grader.sandbox",
                      "grader.trace"),
    # above the engine: the drill's own code is judged in-process with the engine's judge (authoring.trusted)
    "grader.authoring": ("grader.cases", "grader.engine", "grader.errors", "grader.fake", "grader.judge",
                         "grader.report", "grader.sandbox", "grader.spec"),
    # debug rounds are graded in-process (trusted content): the sandbox's records and the one judge
    "grader.authoring.trusted": ("grader.cases", "grader.engine", "grader.fake", "grader.judge", "grader.report",
                                 "grader.sandbox", "grader.errors"),
    "grader.authoring.rounds": ("grader.cases", "grader.engine", "grader.rounds", "grader.spec"),
    "grader.rounds": ("grader.errors", "grader.spec"),
    # trainer/, bottom up
    "trainer": (),
    "trainer.clock": (),
    "trainer.files": (),
    "trainer.paths": ("grader.catalogue",),
    "trainer.catalogue_cache": ("grader.catalogue", "trainer.files", "trainer.paths"),
    "trainer.validate_seconds": ("grader.spec", "trainer.files", "trainer.paths"),  # a hint under DRILL_HOME, like the cache
    "trainer.schedule": ("grader.errors", "grader.report", "trainer.clock"),
    "trainer.store": ("grader.errors", "trainer.clock", "trainer.paths", "trainer.schedule.adapter",
                      "trainer.schedule.streak"),
    "trainer.schedule.due": ("trainer.clock", "trainer.store"),  # the agenda reads the store
    "trainer.text": ("grader.report", "grader.spec", "trainer.clock", "trainer.schedule.due"),
    "trainer.practice": ("grader.report", "grader.spec", "trainer.clock", "trainer.store", "trainer.text"),
    "trainer.reports": ("trainer.clock", "trainer.practice", "trainer.schedule", "trainer.store", "trainer.text"),
    "trainer.team": ("grader.errors", "grader.spec", "trainer.clock", "trainer.practice", "trainer.reports",
                     "trainer.text"),
    "trainer.repl": ("grader.cases", "grader.engine", "grader.judge", "grader.report", "grader.spec", "grader.threads",
                     "grader.trace",
                     "grader.worker", "trainer.clock", "trainer.practice", "trainer.store", "trainer.text"),
    "trainer.cli": ("grader.authoring", "grader.catalogue", "grader.rounds", "grader.engine", "grader.errors", "grader.fake",
                    "grader.roomy", "grader.sandbox", "grader.spec", "trainer.catalogue_cache", "trainer.clock", "trainer.files",
                    "trainer.paths", "trainer.practice", "trainer.repl", "trainer.reports", "trainer.schedule",
                    "trainer.store", "trainer.team", "trainer.text", "trainer.validate_seconds"),
    "trainer.__main__": ("trainer.cli",),
}


def _part(module: str) -> str:
    """The part a module belongs to: the package under grader/ or trainer/, or the module."""
    return ".".join(module.split(".")[:2])


def _rule(module: str) -> str | None:
    keys = [k for k in MAY_IMPORT if module == k or module.startswith(k + ".")]
    return max(keys, key=len) if keys else None


def _allowed(target: str, allowed: tuple[str, ...]) -> bool:
    # a package above an allowed module runs when that module is imported: it is allowed too
    return any(target == a or target.startswith(a + ".") or a.startswith(target + ".") for a in allowed)


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for module in sorted(graph):
        rule = _rule(module)
        if rule is None:
            out.append(f"{module}: no entry in MAY_IMPORT; say which parts it may import")
            continue
        for target in sorted(graph[module]):
            if target in ("grader", "trainer") or _part(target) == _part(module):
                continue  # within its own part, or the top package (grader/__init__.py: no code)
            if not _allowed(target, MAY_IMPORT[rule]):
                out.append(f"{module} imports {target}, which {rule} may not (MAY_IMPORT[{rule!r}])")
    return out


def test_every_import_keeps_the_layer_order():
    problems = layer_violations(import_graph())
    assert not problems, "\n".join(problems)


def test_grader_never_imports_trainer_and_text_never_the_cli():
    graph = import_graph()
    crossing = [f"{m} -> {t}" for m, ts in graph.items() for t in ts
                if (m.startswith("grader") and t.startswith("trainer"))
                or (m.startswith("trainer.text") and t.startswith("trainer.cli"))]
    assert not crossing, crossing


def test_the_checks_see_a_circle_and_a_lazy_import():
    """The checks themselves: a circle closed inside a function is found, and so is a crossing."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    tree = ast.parse("def f():\n    from grader.cli import x\nif TYPE_CHECKING:\n    import trainer.y\n")
    assert _imported(tree, "grader.z", False) == [("grader.cli", ["x"])]
    assert layer_violations({"grader.spec.records": {"trainer.cli"}}) == [
        "grader.spec.records imports trainer.cli, which grader.spec may not (MAY_IMPORT['grader.spec'])"]
