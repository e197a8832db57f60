"""Banned calls, detected at run time inside the sandbox child.

Before the solution is imported, every module attribute that *is* a banned
object is replaced by a guard (so `from torch.nn.functional import unfold as
U`, `torchvision.ops.boxes.box_iou` and `nn.Unfold` are caught), banned
classes get guarded `__init__`/`forward`, banned tensor methods are replaced
on `torch.Tensor`, and a TorchFunctionMode catches the originals reached by
any other route. A guard records the call before raising, so a solution that
swallows the exception is still reported.

A banned function's private helpers (`helpers`) are guarded too, but refuse
only a caller outside their library's own functions that name them
(numpy.broadcast_to keeps its `_broadcast_to`). A banned name whose module is
not imported yet (scipy.spatial.distance.cdist) is guarded when the solution
imports it (`_LazyBans`), so the grader never pays for importing it. A
function compiled by TorchScript that names a guard is refused at the compile
(`_guard_script`), not left to fail with TorchScript's own error.
"""
from __future__ import annotations

import dis
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import CodeType, FunctionType, ModuleType
from typing import Any, Callable, Iterator


class BannedCall(BaseException):
    """Raised by a guard. A BaseException so `except Exception` does not hide it."""

    def __init__(self, name: str):
        super().__init__(f"{name} is banned in this drill: write it by hand")
        self.name = name


class Unresolved(AttributeError):
    """A banned or required name that names nothing here (a typo, or a package not installed);
    an AttributeError, so every caller that skips a missing attribute skips it too."""


class NotLoaded(Unresolved):
    """A name in a module that is not imported yet (resolved with `load=False`)."""


def resolve(dotted: str, load: bool = True) -> Any:
    """The object a dotted name points at (`torch.Tensor.bincount`, `numpy.bincount`);
    Unresolved when it names nothing. A module that exists but fails to import raises.
    With `load=False` nothing is imported: a name whose module is not imported yet raises NotLoaded."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        modname = ".".join(parts[:i])
        if not load:
            obj = sys.modules.get(modname)
            if obj is None:
                continue
            for attr in parts[i:]:
                obj = _loaded_attr(obj, attr, dotted)
            return obj
        try:
            obj = importlib.import_module(modname)
        except ModuleNotFoundError as exc:
            if exc.name is None or not (modname + ".").startswith(exc.name + "."):
                raise  # the module exists but cannot load one it needs: a broken install says so
            continue  # no such module (an attribute path, or a package not installed): try a shorter one
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    if not load and importlib.util.find_spec(parts[0]) is not None:
        raise NotLoaded(dotted)
    raise Unresolved(dotted)


def _loaded_attr(obj: Any, attr: str, dotted: str) -> Any:
    """getattr, except that a package's submodule that is not imported yet raises NotLoaded
    (a package's own __getattr__ would import it: scipy's does)."""
    if isinstance(obj, ModuleType) and getattr(vars(obj).get("__spec__"), "_initializing", False):
        raise NotLoaded(dotted)  # still executing: what it will hold is not there yet
    if isinstance(obj, ModuleType) and attr not in vars(obj):
        path = vars(obj).get("__path__")  # not getattr: torch.ops makes up any name asked of it
        if path is not None and importlib.machinery.PathFinder.find_spec(f"{obj.__name__}.{attr}", path):
            raise NotLoaded(dotted)
    return getattr(obj, attr)


def locations(banned: tuple[str, ...], with_helpers: bool = False) -> list[tuple[str, str, str]]:
    """(module name, attribute, banned name) for every module attribute holding a banned object,
    and with `with_helpers` every one holding a function it hands its work to (`helpers`).
    Imports nothing: a name whose module is not imported yet is guarded in the child when the
    solution imports it (`_LazyBans`).

    Computed once in the parent (it walks sys.modules), replayed in each child.
    """
    targets: dict[int, str] = {}
    found: dict[int, Any] = {}
    for name in banned:
        try:
            obj = resolve(name, load=False)
        except AttributeError:  # Unresolved and NotLoaded included
            continue
        targets[id(obj)] = name
        for helper, label in helpers(name, obj) if with_helpers else []:
            targets.setdefault(id(helper), label)
            found[id(helper)] = helper
    places = _holding(targets, sys.modules)
    _note_callers(found, places)
    return places


def _note_callers(helpers: dict[int, Any], places: list[tuple[str, str, str]]) -> None:
    """Record, for each helper, the code of its library's functions that name it: those of its
    own module and of every module that holds it (torch._meta_registrations holds
    torch._refs._broadcast_shapes). Found in the parent, inherited by each child."""
    for key, helper in helpers.items():
        holders = {modname for modname, attr, _ in places if getattr(sys.modules.get(modname), attr, None) is helper}
        holders.add(_defined_in(helper))
        _CALLERS[key] = _library_callers(getattr(helper, "__name__", ""), holders)


def _holding(targets: dict[int, str], modules: Any) -> list[tuple[str, str, str]]:
    found = []
    for modname, module in list(modules.items()):
        if module is None or modname.startswith("_drill_ref_"):
            continue
        try:
            items = list(vars(module).items())
        except TypeError:
            continue
        for attr, value in items:
            target = targets.get(id(value))
            if target is not None:
                found.append((modname, attr, target))
    return found


_MISSING = object()
# helper id -> the code objects allowed to call it: its own library's functions that name it (`_library_callers`)
_CALLERS: dict[int, frozenset[CodeType]] = {}


def references(code: CodeType, space: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(dotted name, object) for every global a function's code reads, and every attribute chain
    read off a module global (`torch._refs._broadcast_shapes`), nested functions included.
    Module attributes are read without importing anything or running a module's __getattr__."""
    chain: tuple[str, Any] | None = None
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            value = space.get(ins.argval, _MISSING)
            chain = None if value is _MISSING else (
                value.__name__ if isinstance(value, ModuleType) else ins.argval, value)
        elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and chain is not None and isinstance(chain[1], ModuleType):
            value = vars(chain[1]).get(ins.argval, _MISSING)
            chain = None if value is _MISSING else (f"{chain[0]}.{ins.argval}", value)
        else:
            chain = None
            continue
        if chain is not None:
            yield chain
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from references(const, space)


def helpers(name: str, obj: Any) -> list[tuple[Any, str]]:
    """The functions a banned Python function hands its work to, named after it. A function its
    code calls (a global, or an attribute of a module global), that its package does not offer
    as a function of its own, and that either holds its name (numpy.einsum -> c_einsum,
    torch.broadcast_shapes -> torch._refs._broadcast_shapes) or is a private function of its own
    module (numpy.broadcast_shapes -> _broadcast_shape, torchvision's box_iou -> _box_inter_union);
    and, two levels down, the same of those helpers in the same module. Each is as good as the
    banned function, so it is guarded too, reported as `name (as module.helper)`, and refused when
    called from anywhere but its own library's functions that name it (`_library_callers`)."""
    func = getattr(obj, "__wrapped__", obj)
    if not isinstance(func, FunctionType):
        return []
    own = func.__name__.strip("_").lower()
    home = _defined_in(func)
    top = sys.modules.get(home.split(".")[0])
    private_home = any(part.startswith("_") for part in home.split("."))
    found: dict[int, tuple[Any, str]] = {}
    seen = {id(obj), id(func)}
    todo = [(func, 0)]
    while todo:
        caller, depth = todo.pop()
        for dotted, value in references(caller.__code__, caller.__globals__):
            if id(value) in seen or not callable(value) or isinstance(value, (type, ModuleType)):
                continue
            seen.add(id(value))
            short = dotted.rsplit(".", 1)[-1]
            public = getattr(top, short, None) is value  # numpy.einsum_path, numpy.broadcast_to
            named = len(own) >= 3 and own in short.lower()
            private = _defined_in(value) == home and (short.startswith("_") or private_home)
            if public or not (named or private) or _torch_builtin(value):
                continue
            where = dotted if "." in dotted else f"{home}.{dotted}"
            found[id(value)] = (value, f"{name} (as {where})")
            if isinstance(value, FunctionType) and depth < 2 and _defined_in(value) == home:
                todo.append((value, depth + 1))
    return list(found.values())


def _defined_in(value: Any) -> str:
    """The module a function was written in (numpy's set_module rewrites `__module__` to `numpy`)."""
    space = getattr(value, "__globals__", None)
    return str(space.get("__name__", "") if isinstance(space, dict) else getattr(value, "__module__", None) or "")


def _torch_builtin(value: Any) -> bool:
    """A torch builtin (`torch._VF.cdist`): its operator is refused at the dispatcher (grader.bans.dispatch)."""
    module = getattr(value, "__module__", None) or ""
    return not isinstance(value, FunctionType) and module.startswith("torch")


def _library_callers(short: str, modules: set[str]) -> frozenset[CodeType]:
    """The code (nested code included) of every function in `modules` whose code names `short`."""
    codes: set[CodeType] = set()
    for modname in modules:
        module = sys.modules.get(modname)
        for value in list(vars(module).values()) if module is not None and short else []:
            func = getattr(value, "__wrapped__", value)
            if isinstance(func, FunctionType) and func.__code__ not in codes:
                nested = list(_nested(func.__code__))
                if any(short in code.co_names for code in nested):
                    codes.update(nested)
    return frozenset(codes)


def _nested(code: CodeType) -> Iterator[CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _nested(const)


def install(banned: tuple[str, ...], places: list[tuple[str, str, str]], on_call: Callable[[str], None]) -> None:
    """Replace banned objects in the child. `on_call(name)` runs before the guard raises."""
    if not banned:
        return
    import torch

    originals: dict[int, str] = {}
    in_place: set[int] = set()  # classes whose __init__ and forward are guarded
    pending: list[str] = []
    for name in banned:
        try:
            obj = resolve(name, load=False)
        except NotLoaded:
            pending.append(name)
            continue
        except AttributeError:  # Unresolved
            continue
        originals[id(obj)] = name
        if isinstance(obj, type):
            if _guard_class(obj, name, on_call):
                in_place.add(id(obj))
        elif name.startswith("torch.Tensor."):
            setattr(torch.Tensor, name.rsplit(".", 1)[1], _guard(name, on_call))
    _replace(places, in_place, on_call)
    placed = {name for _, _, name in places}
    late = [name for name in banned if name not in placed and name not in pending and name in originals.values()
            and not name.startswith("torch.Tensor.") and id(resolve(name, load=False)) not in in_place]
    if late:  # imported in the parent after its places were found (another drill's oracle imported it)
        _guard_now(late, on_call)
    _BanMode(originals, on_call).__enter__()
    _guard_script(on_call)
    if pending:
        sys.meta_path.insert(0, _LazyBans(pending, on_call))


def _replace(places: list[tuple[str, str, str]], in_place: set[int], on_call: Callable[[str], None]) -> None:
    for modname, attr, name in places:
        module = sys.modules.get(modname)
        if module is None:
            continue
        value = getattr(module, attr, None)
        if id(value) in in_place:
            continue  # classes are guarded in place
        callers = _CALLERS.get(id(value)) if " (as " in name else None  # a helper's label (`helpers`)
        try:
            setattr(module, attr, _guard(name, on_call) if callers is None else _helper_guard(name, value, callers, on_call))
        except (AttributeError, TypeError):
            pass


def _guard(name: str, on_call: Callable[[str], None]) -> Callable:
    def guard(*args: Any, **kwargs: Any) -> Any:
        on_call(name)
        raise BannedCall(name)

    guard.__name__ = name.rsplit(".", 1)[-1]
    guard.__drill_banned__ = name  # type: ignore[attr-defined]
    return guard


def _helper_guard(name: str, helper: Any, callers: frozenset[CodeType], on_call: Callable[[str], None]) -> Callable:
    """A guard for a banned function's helper: its own library's functions that name it still get it."""
    def guard(*args: Any, **kwargs: Any) -> Any:
        if sys._getframe(1).f_code in callers:
            return helper(*args, **kwargs)
        on_call(name)
        raise BannedCall(name)

    guard.__name__ = getattr(helper, "__name__", "helper")
    guard.__drill_banned__ = name  # type: ignore[attr-defined]
    return guard


def _guard_class(cls: type, name: str, on_call: Callable[[str], None]) -> bool:
    """Guard a class's __init__ and forward in place; False for a class that will not take it
    (numpy.broadcast, a C type: its module attributes get a guard instead)."""
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        on_call(name)
        raise BannedCall(name)

    try:
        cls.__init__ = init  # type: ignore[misc]
        if hasattr(cls, "forward"):
            cls.forward = _guard(name, on_call)  # type: ignore[attr-defined]
    except TypeError:
        return False
    return True


def _guard_now(names: list[str], on_call: Callable[[str], None]) -> list[str]:
    """Guard these banned names (and their helpers) wherever their package's modules hold them;
    return the names that are not imported yet."""
    targets: dict[int, str] = {}
    found: dict[int, Any] = {}
    left = []
    for name in names:
        try:
            obj = resolve(name, load=False)
        except NotLoaded:
            left.append(name)
            continue
        except AttributeError:  # Unresolved: never will be
            continue
        targets[id(obj)] = name
        for helper, label in helpers(name, obj):
            targets.setdefault(id(helper), label)
            found[id(helper)] = helper
    if targets:
        packages = {name.split(".")[0] for name in targets.values()}
        places = _holding(targets, {n: m for n, m in list(sys.modules.items()) if n.split(".")[0] in packages})
        _note_callers(found, places)
        _replace(places, set(), on_call)
    return left


class _LazyBans(importlib.abc.MetaPathFinder):
    """Guards the banned names whose module was not imported before the solution ran, right after
    the solution's import of it executes (and every alias, in that package's modules)."""

    def __init__(self, pending: list[str], on_call: Callable[[str], None]):
        self.pending = pending
        self.on_call = on_call
        self.packages = {name.split(".")[0] for name in pending}

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname.split(".")[0] not in self.packages:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _GuardingLoader(spec.loader, self)
                return spec
        return None

    def apply(self) -> None:
        self.pending = _guard_now(self.pending, self.on_call)


class _GuardingLoader(importlib.abc.Loader):
    def __init__(self, loader: Any, bans: _LazyBans):
        self.loader = loader
        self.bans = bans

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        self.bans.apply()

    def __getattr__(self, name: str) -> Any:  # get_source, is_package, ... as the real loader has them
        return getattr(self.loader, name)


def _guard_script(on_call: Callable[[str], None]) -> None:
    """torch.jit.script of code that names a guard is refused as the banned call it is
    (TorchScript would otherwise fail to compile the guard with an error of its own)."""
    import torch.jit

    original = torch.jit.script

    def script(obj: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return original(obj, *args, **kwargs)
        except Exception:
            name = _named_guard(obj)
            if name is None:
                raise
            on_call(name)
            raise BannedCall(name) from None

    script.__doc__ = original.__doc__
    for module in (sys.modules.get("torch.jit"), sys.modules.get("torch.jit._script")):
        if module is not None and getattr(module, "script", None) is original:
            module.script = script  # type: ignore[attr-defined]


def _named_guard(obj: Any) -> str | None:
    """The banned name of a guard that a function (or a module's methods) names, following the
    solution's own functions it calls, as TorchScript compiles them."""
    if isinstance(getattr(obj, "__drill_banned__", None), str):  # torch.jit.script(the banned function itself)
        return str(obj.__drill_banned__)
    todo = [getattr(obj, "__wrapped__", obj)]
    if not isinstance(todo[0], FunctionType):
        todo = [v for v in vars(type(obj) if not isinstance(obj, type) else obj).values() if isinstance(v, FunctionType)]
    seen: set[int] = set()
    while todo:
        func = todo.pop()
        if id(func) in seen:
            continue
        seen.add(id(func))
        for _, value in references(func.__code__, func.__globals__):
            name = getattr(value, "__drill_banned__", None)
            if isinstance(name, str):
                return name
            if isinstance(value, FunctionType) and value.__globals__ is func.__globals__:
                todo.append(value)
    return None


def _ban_mode_class() -> type:
    from torch.overrides import TorchFunctionMode

    class BanMode(TorchFunctionMode):
        def __init__(self, originals: dict[int, str], on_call: Callable[[str], None]):
            super().__init__()
            self.originals = originals
            self.on_call = on_call

        def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
            name = self.originals.get(id(func))
            if name is not None:
                self.on_call(name)
                raise BannedCall(name)
            return func(*args, **(kwargs or {}))

    return BanMode


def _BanMode(originals: dict[int, str], on_call: Callable[[str], None]) -> Any:  # noqa: N802
    return _ban_mode_class()(originals, on_call)


def install_counters(required: dict[str, int], places: list[tuple[str, str, str]]) -> dict[str, int]:
    """Wrap every module attribute holding a `must_call` object with a call counter.

    A name that resolves to a torch operator (`torch.ops.torchvision.nms`) is counted
    by a TorchFunctionMode instead, so every route to the operator counts once.
    Returns the live counts (name -> calls); the sandbox clears it before each call.
    """
    import torch

    counts: dict[str, int] = {name: 0 for name in required}
    ops: dict[int, str] = {}
    for name in required:
        try:
            obj = resolve(name, load=False)
        except AttributeError:  # Unresolved included
            continue
        if isinstance(obj, (torch._ops.OpOverloadPacket, torch._ops.OpOverload)):
            ops[id(obj)] = name
    if ops:
        _count_mode_class()(ops, counts).__enter__()
    for modname, attr, name in places:
        if name in ops.values():
            continue
        module = sys.modules.get(modname)
        original = getattr(module, attr, None) if module is not None else None
        if original is None or isinstance(original, type):
            continue

        def counted(*args: Any, __original: Any = original, __name: str = name, **kwargs: Any) -> Any:
            counts[__name] += 1
            return __original(*args, **kwargs)

        counted.__name__ = getattr(original, "__name__", attr)
        counted.__doc__ = getattr(original, "__doc__", None)
        try:
            setattr(module, attr, counted)
        except (AttributeError, TypeError):
            pass
    return counts


def _count_mode_class() -> type:
    from torch.overrides import TorchFunctionMode

    class CountMode(TorchFunctionMode):
        def __init__(self, ops: dict[int, str], counts: dict[str, int]):
            super().__init__()
            self.ops = ops
            self.counts = counts

        def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
            name = self.ops.get(id(func)) or self.ops.get(id(getattr(func, "overloadpacket", None)))
            if name is not None:
                self.counts[name] += 1
            return func(*args, **(kwargs or {}))

    return CountMode
