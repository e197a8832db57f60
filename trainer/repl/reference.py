"""The reference solution as shown after a pass: the imports it uses, the contract
functions, and the module-level helpers they call (nothing else from the drill's .py file).

Under a variant the reference is machinery that serves every convention (a `layout=`
keyword, a `_prepare` helper); what a person wants to see is a clean answer for the
convention they solved. `variant_solution` finds the drill's own `ok_variant_*` sample
whose `# variant:` line names exactly that variant (drills/README.md, "Variants")."""
from __future__ import annotations

import ast
from pathlib import Path

from grader.spec.userfile import REFERENCE_LIMIT, UnreadableFile, read_text


def contract_source(reference_path: Path, names: list[str]) -> str:
    """The source of the functions named in the spec and the helpers they use, in file order."""
    try:
        text = read_text(Path(reference_path), REFERENCE_LIMIT)
        tree = ast.parse(text)
    except (UnreadableFile, SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    wanted = [n for n in names if n in defs]
    keep: set[str] = set()
    while wanted:
        name = wanted.pop()
        if name in keep:
            continue
        keep.add(name)
        used = {node.id for node in ast.walk(defs[name]) if isinstance(node, ast.Name)}
        wanted += [u for u in used if u in defs and u not in keep and not u.startswith("trap")]
    lines = text.splitlines()
    used_names = {node.id for name in keep for node in ast.walk(defs[name]) if isinstance(node, ast.Name)}
    imports = []
    for node in tree.body:  # `import math` when the code shown calls math.sqrt: it reads as it runs
        if isinstance(node, (ast.Import, ast.ImportFrom)) and getattr(node, "module", "") != "__future__":
            bound = {(a.asname or a.name).split(".")[0] for a in node.names}
            if bound & used_names:
                imports.append("\n".join(lines[node.lineno - 1:node.end_lineno]))
    parts = ["\n".join(imports)] if imports else []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in keep:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            parts.append("\n".join(lines[start - 1:node.end_lineno]))
    return "\n\n".join(parts)


SAMPLE_LIMIT = 64 * 1024  # a sample solution is a page of code


def variant_solution(spec_path: Path, drill: str, variant: dict[str, str]) -> str:
    """The code of the drill's `ok_variant_*` sample written for exactly ``variant`` (its `# variant:`
    line, then the code; the line itself left out); "" when none is."""
    if not variant:
        return ""
    folder = Path(spec_path).parent / "solutions" / drill
    try:
        candidates = sorted(p for p in folder.glob("ok_variant_*.py") if p.is_file() and not p.is_symlink())
    except OSError:
        return ""
    for path in candidates:
        try:
            text = read_text(path, SAMPLE_LIMIT)
        except UnreadableFile:
            continue
        lines = text.splitlines()
        head = next((i for i, line in enumerate(lines[:5]) if line.startswith("# variant:")), None)
        if head is None:
            continue
        pairs = dict(w.split("=", 1) for w in lines[head][len("# variant:"):].split() if "=" in w)
        if pairs == dict(variant):
            return "\n".join(lines[:head] + lines[head + 1:]).strip("\n")
    return ""
