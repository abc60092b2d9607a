"""gitrefocus.model.records against the standard library's dataclasses: the same class
body made by each behaves the same way, for every option the package uses."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from gitrefocus.model import records

OPTIONS = [{}, {"frozen": True}, {"slots": True}, {"frozen": True, "slots": True}]


def body(maker):
    """A class body using every feature the package uses: required and default fields,
    factories, a field neither shown nor compared, a method and a property."""
    return {
        "__module__": __name__,
        "__qualname__": "Sample",
        "__annotations__": {"name": "str", "count": "int", "tags": "list[str]", "meta": "dict[str, int]",
                            "order": "tuple[str, ...]", "note": "str | None"},
        "count": 0,
        "tags": maker.field(default_factory=list),
        "meta": maker.field(default_factory=dict),
        "order": maker.field(default=("a", "b"), compare=False, repr=False),
        "note": None,
        "doubled": lambda self: self.count * 2,
        "label": property(lambda self: f"{self.name}:{self.count}"),
    }


def make(maker, **options):
    return maker.dataclass(**options)(type("Sample", (), body(maker)))


def pair(**options):
    return make(dataclasses, **options), make(records, **options)


def outcome(call):
    """What ``call()`` gives, or the type of what it raises."""
    try:
        return "ok", call()
    except Exception as e:  # noqa: BLE001 - the exception's type is what is compared
        return "raised", type(e).__mro__[1] if type(e).__name__ == "FrozenInstanceError" else type(e)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_construction_repr_and_defaults_are_the_standard_librarys(options):
    std, ours = pair(**options)
    for args, kwargs in [(("x",), {}), (("x", 3), {}), ((), {"name": "y", "tags": ["t"], "note": "n"}),
                         (("x", 1, ["a"], {"k": 1}, ("z",), "note"), {})]:
        a, b = std(*args, **kwargs), ours(*args, **kwargs)
        assert repr(a) == repr(b)
        assert dataclasses.asdict(a) == records.asdict(b)
        assert (a.doubled(), a.label) == (b.doubled(), b.label)
    for args, kwargs in [((), {}), (("x",), {"nope": 1}), (("x",) * 7, {}), (("x",), {"name": "y"})]:
        assert outcome(lambda: std(*args, **kwargs)) == outcome(lambda: ours(*args, **kwargs)), (args, kwargs)
    # a factory makes a new value for each instance, and a plain default stays on the class (not with slots)
    assert ours("x").tags is not ours("x").tags
    def on_class(cls, name):
        value = getattr(cls, name, "absent")
        return "a slot" if type(value).__name__ == "member_descriptor" else value

    for name in ("count", "tags", "meta", "order", "note"):
        assert on_class(std, name) == on_class(ours, name), name
    assert std.__match_args__ == ours.__match_args__
    assert [f.name for f in dataclasses.fields(std)] == [f.name for f in records.fields(ours)]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_equality_hashing_and_frozenness_are_the_standard_librarys(options):
    std, ours = pair(**options)
    for cls in (std, ours):
        same, other_order, differs = cls("x", 1), cls("x", 1, order=("q",)), cls("x", 2)
        assert same == other_order  # not compared
        assert same != differs
        assert (same == ("x", 1)) is False
        if options.get("frozen"):  # its list and dict make it unhashable; a tuple and a str do not
            hashable = [cls("x", 1, (), "", order=order) for order in ((), ("q",))]
            assert hash(hashable[0]) == hash(hashable[1]) and len({*hashable, cls("x", 2, (), "")}) == 2
            with pytest.raises(TypeError):
                hash(same)
        else:
            with pytest.raises(TypeError):
                hash(same)
    actions = {"assign a field": lambda o: setattr(o, "count", 5), "delete a field": lambda o: delattr(o, "count"),
               "assign another name": lambda o: setattr(o, "extra", 1)}
    for what, action in actions.items():
        if options == {"frozen": True, "slots": True} and what == "assign another name":
            # 3.11's own closure names the class from before slots made it anew: TypeError from super()
            assert outcome(lambda: action(ours("x"))) == ("raised", AttributeError)
            continue
        assert outcome(lambda: action(std("x"))) == outcome(lambda: action(ours("x"))), what
    if options.get("frozen"):
        assert issubclass(records.FrozenInstanceError, AttributeError)
        with pytest.raises(records.FrozenInstanceError, match="cannot assign to field 'count'"):
            ours("x").count = 1
    if options.get("slots"):
        assert std.__slots__ == ours.__slots__ and not hasattr(ours("x"), "__dict__")


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_replace_copy_and_pickle_keep_every_field(options):
    std, ours = pair(**options)
    a, b = std("x", 1, ["t"], {"k": 1}, ("o",), "n"), ours("x", 1, ["t"], {"k": 1}, ("o",), "n")
    assert repr(dataclasses.replace(a, count=9, note=None)) == repr(records.replace(b, count=9, note=None))
    assert records.replace(b, count=9).order == ("o",)  # a field not compared is carried too
    with pytest.raises(TypeError):
        records.replace(b, nope=1)
    for copied in (copy.copy(b), copy.deepcopy(b)):
        assert copied == b and copied.order == b.order
    globals()["Sample"] = ours  # pickle finds a class by its module and name
    try:
        back = pickle.loads(pickle.dumps(b))
    finally:
        del globals()["Sample"]
    assert back == b and back.order == b.order and type(back) is ours


def test_asdict_converts_nested_records_and_copies_the_rest():
    inner = records.dataclass(frozen=True)(type("Inner", (), {"__annotations__": {"v": "int"}}))
    outer = records.dataclass(type("Outer", (), {"__annotations__": {"items": "list", "by": "dict", "pair": "tuple"}}))
    data = {"deep": [1]}
    made = records.asdict(outer([inner(1)], {"k": inner(2), "raw": data}, (inner(3), "s")))
    assert made == {"items": [{"v": 1}], "by": {"k": {"v": 2}, "raw": {"deep": [1]}}, "pair": ({"v": 3}, "s")}
    assert made["by"]["raw"] is not data and made["by"]["raw"]["deep"] is not data["deep"]
    with pytest.raises(TypeError):
        records.asdict({"not": "a record"})


def test_make_dataclass_has_the_layout_a_frozen_twin_can_take():
    """RefocusState's reader builds a plain twin and gives it the frozen class (see
    gitrefocus.model.events): the two must have the same slots."""
    frozen = records.dataclass(frozen=True, slots=True)(type("F", (), {"__annotations__": {"a": "int", "b": "int"}}))
    twin = records.make_dataclass("Twin", ("a", "b"), slots=True)
    made = twin(1, 2)
    made.__class__ = frozen
    assert made == frozen(1, 2) and hash(made) == hash(frozen(1, 2))
    with pytest.raises(AttributeError):
        made.a = 3


@pytest.mark.parametrize("maker", [dataclasses, records], ids=["dataclasses", "records"])
def test_the_mistakes_dataclasses_refuse_are_refused(maker):
    with pytest.raises(ValueError):
        maker.dataclass(type("M", (), {"__annotations__": {"a": "list"}, "a": []}))
    with pytest.raises(TypeError):
        maker.dataclass(type("O", (), {"__annotations__": {"a": "int", "b": "int"}, "a": 1}))
    with pytest.raises(TypeError):
        maker.dataclass(frozen=True)(type("S", (), {"__annotations__": {"a": "int"}, "__setattr__": lambda *a: None}))


@pytest.mark.parametrize("cls_body", [
    {"__annotations__": {"a": "ClassVar[int]"}},
    {"__annotations__": {"a": "InitVar[int]"}},
    {"__annotations__": {"a": "int"}, "__post_init__": lambda self: None},
], ids=["ClassVar", "InitVar", "__post_init__"])
def test_what_records_do_not_support_is_refused_not_misread(cls_body):
    with pytest.raises(TypeError):
        records.dataclass(type("U", (), cls_body))


def test_a_record_cannot_inherit_from_another():
    base = records.dataclass(type("Base", (), {"__annotations__": {"a": "int"}}))
    with pytest.raises(TypeError):
        records.dataclass(type("Child", (base,), {"__annotations__": {"b": "int"}}))


def test_a_method_the_class_defines_is_kept():
    cls = records.dataclass(type("K", (), {"__annotations__": {"a": "int"}, "__repr__": lambda self: "mine",
                                           "__eq__": lambda self, other: True, "__hash__": lambda self: 7}))
    assert repr(cls(1)) == "mine" and cls(1) == cls(2) and hash(cls(1)) == 7


def test_fields_may_take_the_names_an_init_uses_itself():
    names = {"self": "int", "setattr": "int", "MISSING": "int", "object": "int"}
    cls = records.dataclass(frozen=True)(type("N", (), {"__annotations__": names, "MISSING": 4, "object": 5}))
    made = cls(1, 2, 3)
    assert (made.self, made.setattr, made.MISSING, made.object) == (1, 2, 3, 5)
    with pytest.raises(TypeError):
        records.dataclass(type("R", (), {"__annotations__": {"__record_self": "int"}}))


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_a_record_within_itself_is_shown_as_the_standard_library_shows_it(options):
    std, ours = pair(**options)
    a, b = std("x", tags=[]), ours("x", tags=[])
    a.tags.append(a)
    b.tags.append(b)
    assert repr(a) == repr(b) and "tags=[...]" in repr(b)
