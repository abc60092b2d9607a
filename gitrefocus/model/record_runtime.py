"""The run-time half of :mod:`gitrefocus.model.records`: what makes a record class when the
program runs. Ordinary, type-checked code (mypy's strict set covers it like any module); the
type checker reads record classes through :mod:`dataclasses` instead (see records.py), so
the two halves are held to each other by ``tests/model/test_records.py``.

Why it exists, and what it measured against the standard library, is in
docs/ARCHITECTURE.md ("Records").
"""

from __future__ import annotations

import _thread
import keyword

TYPE_CHECKING = False  # no `typing` at run time: every listing and hook imports this module
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")
    Values = Callable[[object], tuple[object, ...]]  # a record's compared fields, as a tuple

FIELDS = "__record_fields__"  # the class attribute holding a record's fields, in order


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Assigning to, or deleting, a field of a frozen record."""


class Field:
    """One field: its name, default or default factory, and whether it is
    shown by ``repr`` and compared by ``==`` and ``hash``."""

    __slots__ = ("name", "default", "default_factory", "repr", "compare")

    def __init__(self, default: object, default_factory: Callable[[], object] | _Missing, repr: bool,
                 compare: bool) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default, self.default_factory, self.repr, self.compare = default, default_factory, repr, compare

    def __repr__(self) -> str:
        return (f"Field(name={self.name!r},default={self.default!r},"
                f"default_factory={self.default_factory!r},repr={self.repr!r},compare={self.compare!r})")


def field(*, default: object = MISSING, default_factory: Callable[[], object] | _Missing = MISSING,
          repr: bool = True, compare: bool = True) -> Any:
    # Any, as dataclasses.field is typed: the class attribute it sits in has the field's type
    return Field(default, default_factory, repr, compare)


def fields(class_or_instance: object) -> tuple[Field, ...]:
    try:
        found: tuple[Field, ...] = getattr(class_or_instance, FIELDS)
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None
    return found


def replace(obj: T, /, **changes: object) -> T:
    """A copy of ``obj`` with ``changes``, made through its ``__init__``."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def asdict(obj: object) -> dict[str, Any]:
    """``obj``'s fields as a dict, records, lists, tuples and dicts within it
    converted too, and everything else deep-copied."""
    if not hasattr(type(obj), FIELDS):
        raise TypeError("asdict() should be called on record instances")
    out: dict[str, Any] = _asdict(obj)
    return out


def _asdict(obj: object) -> Any:
    if hasattr(type(obj), FIELDS):
        return {f.name: _asdict(getattr(obj, f.name)) for f in getattr(obj, FIELDS)}
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(_asdict(v) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_asdict(k), _asdict(v)) for k, v in obj.items())
    if obj is None or type(obj) in (str, int, float, bool):
        return obj
    import copy

    return copy.deepcopy(obj)


def dataclass(cls: type[T] | None = None, /, *, frozen: bool = False,
              slots: bool = False) -> type[T] | Callable[[type[T]], type[T]]:
    def wrap(cls: type[T]) -> type[T]:
        return _process(cls, frozen, slots)

    return wrap if cls is None else wrap(cls)


def make_dataclass(cls_name: str, field_names: tuple[str, ...] | list[str], *, slots: bool = False) -> type:
    """A record class named ``cls_name`` with required fields ``field_names``."""
    return _process(type(cls_name, (), {"__annotations__": dict.fromkeys(field_names, "object")}), False, slots)


_REFUSED = ("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar", "KW_ONLY", "dataclasses.KW_ONLY")


def _process(cls: type[T], frozen: bool, slots: bool) -> type[T]:
    if any(hasattr(base, FIELDS) for base in cls.__mro__[1:]):
        raise TypeError(f"{cls.__name__}: a record cannot inherit from another record")
    if "__post_init__" in cls.__dict__:
        raise TypeError(f"{cls.__name__}: records do not support __post_init__")
    all_fields = _fields_of(cls)
    setattr(cls, FIELDS, all_fields)
    names = tuple(f.name for f in all_fields)
    _set_new(cls, "__init__", _make_init(cls, all_fields, frozen))
    _set_new(cls, "__repr__", _make_repr(tuple(f.name for f in all_fields if f.repr)))
    compared = _getter(tuple(f.name for f in all_fields if f.compare))
    _set_new(cls, "__eq__", _make_eq(compared))
    explicit_hash = "__hash__" in cls.__dict__ and not (cls.__dict__["__hash__"] is None and "__eq__" in cls.__dict__)
    if not explicit_hash:  # eq without frozen leaves a record unhashable, as with dataclasses
        _install(cls, __hash__=_make_hash(compared) if frozen else None)
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if name in cls.__dict__:
                raise TypeError(f"cannot overwrite attribute {name} in class {cls.__name__}")
        _install(cls, __setattr__=_frozen_setattr(cls, names), __delattr__=_frozen_delattr(cls, names))
    _set_new(cls, "__match_args__", names)
    if slots:
        cls = _with_slots(cls, names, frozen)
    return cls


def _fields_of(cls: type) -> tuple[Field, ...]:
    """The fields the class body declares, in order, each checked as dataclasses checks it."""
    found = []
    seen_default = False
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if not isinstance(annotation, str) or annotation.split("[")[0] in _REFUSED:
            raise TypeError(f"{cls.__name__}.{name}: records take plain annotations (no ClassVar, InitVar or KW_ONLY)")
        if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("__record_"):
            raise TypeError(f"field names must be identifiers not starting with __record_: {name!r}")
        value = cls.__dict__.get(name, MISSING)
        f = value if isinstance(value, Field) else Field(value, MISSING, True, True)
        f.name = name
        if type(f.default) in (list, dict, set):
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
        has_default = f.default is not MISSING or f.default_factory is not MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {name!r} follows default argument")
        seen_default |= has_default
        if isinstance(value, Field):  # the class keeps a plain default, as dataclasses leaves it
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        found.append(f)
    return tuple(found)


def _set_new(cls: type, name: str, value: object) -> None:
    if name not in cls.__dict__:
        setattr(cls, name, value)


def _install(cls: type, **methods: object) -> None:
    """Set methods on a made class (the type checker refuses assigning to a method)."""
    for name, value in methods.items():
        setattr(cls, name, value)


def _make_init(cls: type, all_fields: tuple[Field, ...], frozen: bool) -> Callable[..., None]:
    """``__init__`` compiled for these fields: the one method each record
    compiles, as construction is what the catalog does by the ten thousand."""
    # the method's own names start with __record_, which no field name may (checked above)
    env: dict[str, Any] = {"__record_missing": MISSING, "__record_set": object.__setattr__}
    params, body = [], []
    for f in all_fields:
        if f.default_factory is not MISSING:
            env[f"__record_factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=__record_missing")
            value = f"__record_factory_{f.name}() if {f.name} is __record_missing else {f.name}"
        else:
            if f.default is not MISSING:
                env[f"__record_default_{f.name}"] = f.default
                params.append(f"{f.name}=__record_default_{f.name}")
            else:
                params.append(f.name)
            value = f.name
        body.append(f"__record_set(__record_self, {f.name!r}, {value})" if frozen
                    else f"__record_self.{f.name} = {value}")
    source = (f"def __init__(__record_self, {', '.join(params)}):\n    "
              + ("\n    ".join(body) or "pass") + "\n")
    exec(source, env)  # the source is made here, from identifiers only (checked above)
    init: Callable[..., None] = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


def _getter(names: tuple[str, ...]) -> Values:
    """The values of ``names`` of an object, as a tuple."""
    if len(names) == 1:
        (only,) = names
        return lambda obj: (getattr(obj, only),)
    if not names:
        return lambda obj: ()
    import operator

    getter: Values = operator.attrgetter(*names)
    return getter


def _make_repr(names: tuple[str, ...]) -> Callable[[object], str]:
    running = set()  # (record, thread) whose repr is being made: a record within itself shows as ...

    def __repr__(self: object) -> str:
        key = (id(self), _thread.get_ident())
        if key in running:
            return "..."
        running.add(key)
        try:
            return f"{type(self).__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"
        finally:
            running.discard(key)

    return __repr__


def _make_eq(values: Values) -> Callable[[object, object], bool]:
    def __eq__(self: object, other: object) -> bool:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _make_hash(values: Values) -> Callable[[object], int]:
    def __hash__(self: object) -> int:
        return hash(values(self))

    return __hash__


def _frozen_setattr(cls: type[Any], names: tuple[str, ...]) -> Callable[[object, str, object], None]:
    def __setattr__(self: Any, name: str, value: object) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _frozen_delattr(cls: type[Any], names: tuple[str, ...]) -> Callable[[object, str], None]:
    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__


def _with_slots(cls: type[T], names: tuple[str, ...], frozen: bool) -> type[T]:
    """The class made again with ``__slots__`` (a class's slots are fixed
    when it is made); its frozen methods, which name the class, follow it."""
    body = dict(cls.__dict__)
    body["__slots__"] = names
    for name in names:
        body.pop(name, None)  # a default lives in __init__: a class attribute would hide the slot
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    if frozen:  # pickling and copying set fields with object.__setattr__
        body["__getstate__"], body["__setstate__"] = _make_state(names)
    metaclass: type = type(cls)
    new: type[T] = metaclass(cls.__name__, cls.__bases__, body)
    new.__qualname__ = cls.__qualname__
    if frozen:
        _install(new, __setattr__=_frozen_setattr(new, names), __delattr__=_frozen_delattr(new, names))
    return new


def _make_state(names: tuple[str, ...]) -> tuple[Callable[[object], tuple[object, ...]],
                                                   Callable[[object, tuple[object, ...]], None]]:
    values = _getter(names)

    def __getstate__(self: object) -> tuple[object, ...]:
        return values(self)

    def __setstate__(self: object, state: tuple[object, ...]) -> None:
        for name, value in zip(names, state, strict=True):
            object.__setattr__(self, name, value)

    return __getstate__, __setstate__
