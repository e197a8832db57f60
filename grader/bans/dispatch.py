"""Banned operator kernels, refused at the dispatcher inside the sandbox child.

grader.bans.trace finds the operators a drill's banned functions reach
(`aten::einsum`, `aten::_cdist_forward`, `aten::im2col`, ...). In the child,
before the solution is imported, each of them gets a kernel of ours
registered over torch's own (torch.library, at every dispatch key where the
operator has a kernel: CompositeImplicitAutograd for a decomposing operator,
else CPU and the composite keys). Every route then ends there: the public
name, `torch.ops.aten.X`, `torch._VF.X`, `torch._C._nn.X`, a Tensor method or
torch's own C++ calling it. Our kernel records the call and raises BannedCall.

torch also implements some of these operators in Python (the decompositions
in torch._decomp, the references in torch._refs, Python kernels kept on the
operator); those compute the same values from ordinary operators, so they are
replaced by refusing guards too: in their tables and in the modules of torch
that hold them. Meta kernels (shapes only) stay. A higher-order operator
(`higher_order::flex_attention`) has only Python kernels: each of them, and
the private helpers they hand the work to (math_attention), is replaced.

The registrations live in this process only (the child's copy). Removing one
needs deliberate work (finding the torch.library object and destroying it);
`tampered()` compares each operator's dispatch table with the one seen right
after the install, so that is noticed and judged `banned`.
"""
from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable
from typing import Any

from grader.bans import calls
from grader.bans.calls import BannedCall

_KEYS = ("CompositeImplicitAutograd", "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional",
         "CPU", "SparseCPU", "SparseCsrCPU", "QuantizedCPU", "MkldnnCPU", "NestedTensorCPU")


_ACTIVE: list[Installed] = []  # keeps the registrations alive (a dropped Library unregisters itself)


def tampered() -> str | None:
    """The banned name of a kernel of ours that was removed or replaced in this process, or None."""
    for installed in _ACTIVE:
        name = installed.tampered()
        if name is not None:
            return name
    return None


class Installed:
    """The registrations of one child, and what their dispatch tables looked like."""

    def __init__(self) -> None:
        self.libraries: list[Any] = []
        self.tables: dict[str, tuple[str, list[str]]] = {}  # overload -> (banned name, the table lines we changed)
        self.seen: dict[str, str] = {}  # overload -> its whole table when last found intact

    def tampered(self) -> str | None:
        """The banned name whose kernel is no longer ours, or None. A table unchanged since it was last
        found intact is intact (one string comparison: this runs twice in every sandbox run)."""
        for qualname, (name, ours) in self.tables.items():
            table = _table(qualname)
            if table is not None and table == self.seen.get(qualname):
                continue
            now = set(table.splitlines()) if table is not None else set()
            if not ours or any(line not in now for line in ours):
                return name
            if table is not None:
                self.seen[qualname] = table
        return None


def _table(qualname: str) -> str | None:
    """The operator's dispatch table, one line per key: which kernel runs, registered where (None: an
    operator gone from the dispatcher, which is not ours any more)."""
    import torch

    try:
        return str(torch._C._dispatch_dump_table(qualname))
    except Exception:  # noqa: BLE001
        return None


def _table_lines(qualname: str) -> list[str]:
    table = _table(qualname)
    return table.splitlines() if table is not None else []


def install(kernels: dict[str, str], on_call: Callable[[str], None]) -> Installed:
    """Register a refusing kernel over every overload of every operator in `kernels`
    (`ns::name` -> banned name). `on_call(label)` runs before BannedCall is raised."""
    import torch

    done = Installed()
    libraries: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "overriding a previously registered kernel": that is the point
        for op, name in kernels.items():
            namespace, _, opname = op.partition("::")
            try:
                packet = getattr(getattr(torch.ops, namespace), opname)
                overloads = packet.overloads()
            except Exception:  # noqa: BLE001, S112 - an operator this torch does not have: nothing to refuse
                continue
            label = f"{name} (as {namespace}.{opname})"
            for overload in overloads:
                qualname = f"{op}.{overload}" if overload != "default" else op
                lib = libraries.get(namespace)
                if lib is None:
                    lib = libraries[namespace] = torch.library.Library(namespace, "IMPL")
                try:
                    keys = [k for k in _KEYS if torch._C._dispatch_has_kernel_for_dispatch_key(qualname, k)]
                except RuntimeError:  # an overload the dispatcher does not know (TorchScript-only)
                    continue
                if "CompositeImplicitAutograd" in keys:
                    keys = ["CompositeImplicitAutograd"]
                target = opname if overload == "default" else f"{opname}.{overload}"
                before = set(_table_lines(qualname))
                registered = False
                for key in keys:
                    try:
                        lib.impl(target, _refuse(label, on_call), key)
                        registered = True
                    except RuntimeError:
                        continue
                if registered:
                    after = _table(qualname) or ""
                    done.tables[qualname] = (name, [line for line in after.splitlines() if line not in before])
                    done.seen[qualname] = after
    done.libraries = list(libraries.values())
    _ACTIVE.append(done)
    _guard_python_routes(kernels, on_call)
    return done


# where torch keeps Python implementations of operators (and of its higher-order operators: flex_attention)
_PY_MODULES = ("torch._refs", "torch._decomp", "torch._prims", "torch._higher_order_ops")


def _guard_python_routes(kernels: dict[str, str], on_call: Callable[[str], None]) -> None:
    """Replace torch's Python implementations of the banned operators with refusing guards."""
    for kind, where, key, label in python_routes(tuple(sorted(kernels.items()))):
        guard = _refuse(label, on_call)
        try:
            if kind == "attr":
                module = sys.modules.get(where)
                if module is not None:
                    setattr(module, key, guard)
            elif kind == "cache":
                where.clear()
            else:  # a table of Python implementations: torch._decomp's, or an operator's py_kernels
                where[key] = guard
        except Exception:  # noqa: BLE001, S112 - a place that will not take the guard keeps the original
            continue


@functools.lru_cache(maxsize=64)
def python_routes(kernels: tuple[tuple[str, str], ...]) -> list[tuple[str, Any, Any, str]]:
    """Where torch keeps a Python implementation of a banned operator: (kind, table or module
    name, key or attribute, label). Found once, in the parent (grader.bans.trace warms this cache
    before any child is forked), so a child only replaces, without walking torch's modules."""
    import torch

    from torch._decomp import global_decomposition_table as tables
    meta = torch._C.DispatchKey.Meta
    places: list[tuple[str, Any, Any, str]] = []
    found: dict[int, str] = {}  # id of a Python implementation -> label
    for op, name in kernels:
        namespace, _, opname = op.partition("::")
        for overload in _overloads(namespace, opname):
            for table_name, table in tables.items():
                func = table.get(overload) if table_name != "meta" else None
                if callable(func):
                    found[id(func)] = label = _python_label(name, func)
                    places.append(("table", table, overload, label))
            py_kernels = getattr(overload, "py_kernels", {})
            for key, func in list(py_kernels.items()):
                if key != meta and callable(func):
                    found[id(func)] = label = _python_label(name, func)
                    places.append(("table", py_kernels, key, label))
                    if namespace == "higher_order":  # its kernels' own helpers (sdpa_dense -> math_attention)
                        found.update((id(h), lab) for h, lab in calls.helpers(name, func))
        for module_name in ("torch._refs", "torch._refs.nn.functional"):
            func = getattr(sys.modules.get(module_name), opname, None)
            if callable(func):
                found[id(func)] = _python_label(name, func)
    for module_name, module in list(sys.modules.items()) if found else []:
        if module is not None and module_name.startswith(_PY_MODULES):
            places.extend(("attr", module_name, attr, found[id(value)])
                          for attr, value in list(vars(module).items()) if id(value) in found)
    for op, name in kernels:  # last: an operator's dispatch cache may hold a kernel replaced above
        places.extend(("cache", o._dispatch_cache, None, name) for o in _overloads(*op.split("::", 1))
                      if isinstance(getattr(o, "_dispatch_cache", None), dict))
    return places


def _overloads(namespace: str, opname: str) -> list[Any]:
    """An operator's overloads; a higher-order operator (flex_attention, Python kernels only) is its own."""
    import torch

    try:
        if namespace == "higher_order":
            return [torch._ops._higher_order_ops[opname]]
        packet = getattr(getattr(torch.ops, namespace), opname)
        return [getattr(packet, o) for o in packet.overloads()]
    except Exception:  # noqa: BLE001 - an operator this torch does not have: nothing to guard
        return []


def _python_label(name: str, func: Any) -> str:
    where = f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', '?')}"
    return f"{name} (as {where})"


def _refuse(label: str, on_call: Callable[[str], None]) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        on_call(label)
        raise BannedCall(label)

    return refuse
