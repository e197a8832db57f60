"""The reference solution as shown after a pass: the imports it uses, the contract
functions, and the module-level helpers they call (nothing else from the drill's .py file)."""
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
