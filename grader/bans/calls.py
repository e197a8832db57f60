"""Banned calls, detected at run time inside the sandbox child.

Before the solution is imported, every module attribute that *is* a banned
object is replaced by a guard (so `from torch.nn.functional import unfold as
U`, `torchvision.ops.boxes.box_iou` and `nn.Unfold` are caught), banned
classes get guarded `__init__`/`forward`, banned tensor methods are replaced
on `torch.Tensor`, and a TorchFunctionMode catches the originals reached by
any other route. A guard records the call before raising, so a solution that
swallows the exception is still reported.
"""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable


class BannedCall(BaseException):
    """Raised by a guard. A BaseException so `except Exception` does not hide it."""

    def __init__(self, name: str):
        super().__init__(f"{name} is banned in this drill: write it by hand")
        self.name = name


class Unresolved(AttributeError):
    """A banned or required name that names nothing here (a typo, or a package not installed);
    an AttributeError, so every caller that skips a missing attribute skips it too."""


def resolve(dotted: str) -> Any:
    """The object a dotted name points at (`torch.Tensor.bincount`, `numpy.bincount`);
    Unresolved when it names nothing. A module that exists but fails to import raises."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        modname = ".".join(parts[:i])
        try:
            obj = importlib.import_module(modname)
        except ModuleNotFoundError as exc:
            if exc.name is None or not (modname + ".").startswith(exc.name + "."):
                raise  # the module exists but cannot load one it needs: a broken install says so
            continue  # no such module (an attribute path, or a package not installed): try a shorter one
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise Unresolved(dotted)


def locations(banned: tuple[str, ...], with_helpers: bool = False) -> list[tuple[str, str, str]]:
    """(module name, attribute, banned name) for every module attribute holding a banned object,
    and with `with_helpers` every one holding a function it hands its work to (`helpers`).

    Computed once in the parent (it walks sys.modules), replayed in each child.
    """
    targets: dict[int, str] = {}
    for name in banned:
        try:
            obj = resolve(name)
        except AttributeError:  # Unresolved included
            continue
        targets[id(obj)] = name
        for helper, label in helpers(name, obj) if with_helpers else []:
            targets.setdefault(id(helper), label)
    found = []
    for modname, module in list(sys.modules.items()):
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


def helpers(name: str, obj: Any) -> list[tuple[Any, str]]:
    """The functions a banned Python function hands its work to, named after it: a global of
    its module that its code calls, whose name holds its own and which its package does not
    offer as a function of its own (numpy.einsum -> c_einsum and bmm_einsum, not einsum_path;
    torchvision's batched_nms -> _batched_nms_coordinate_trick). Each is as good as the banned
    function, so it is guarded too, reported as `name (as module.helper)`."""
    func = getattr(obj, "__wrapped__", obj)
    code = getattr(func, "__code__", None)
    own = getattr(func, "__name__", "").strip("_").lower()
    if code is None or len(own) < 3:
        return []
    found = []
    space = getattr(func, "__globals__", {})
    for global_name in code.co_names:
        value = space.get(global_name)
        if value is None or value is obj or value is func or isinstance(value, (type, type(sys))):
            continue
        module = getattr(func, "__module__", None) or "?"
        public = getattr(sys.modules.get(module.split(".")[0]), global_name, None) is value  # numpy.einsum_path
        if own in global_name.lower() and callable(value) and not public:
            found.append((value, f"{name} (as {module}.{global_name})"))
    return found


def install(banned: tuple[str, ...], places: list[tuple[str, str, str]], on_call: Callable[[str], None]) -> None:
    """Replace banned objects in the child. `on_call(name)` runs before the guard raises."""
    if not banned:
        return
    import torch

    originals: dict[int, str] = {}
    for name in banned:
        try:
            obj = resolve(name)
        except AttributeError:  # Unresolved included
            continue
        originals[id(obj)] = name
        if isinstance(obj, type):
            _guard_class(obj, name, on_call)
        elif name.startswith("torch.Tensor."):
            setattr(torch.Tensor, name.rsplit(".", 1)[1], _guard(name, on_call))
    for modname, attr, name in places:
        module = sys.modules.get(modname)
        if module is None:
            continue
        value = getattr(module, attr, None)
        if isinstance(value, type):
            continue  # classes are guarded in place
        try:
            setattr(module, attr, _guard(name, on_call))
        except (AttributeError, TypeError):
            pass
    _BanMode(originals, on_call).__enter__()


def _guard(name: str, on_call: Callable[[str], None]) -> Callable:
    def guard(*args: Any, **kwargs: Any) -> Any:
        on_call(name)
        raise BannedCall(name)

    guard.__name__ = name.rsplit(".", 1)[-1]
    return guard


def _guard_class(cls: type, name: str, on_call: Callable[[str], None]) -> None:
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        on_call(name)
        raise BannedCall(name)

    try:
        cls.__init__ = init  # type: ignore[misc]
        if hasattr(cls, "forward"):
            cls.forward = _guard(name, on_call)  # type: ignore[attr-defined]
    except TypeError:
        pass


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
            obj = resolve(name)
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
