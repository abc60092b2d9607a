"""The standard library's ``dataclass``, as git refocus uses it, without its cost.

``import dataclasses`` loads ``inspect`` (with ``ast``, ``dis`` and ``tokenize``), and each
class it makes compiles five or six generated methods, one ``exec`` apiece: about 20 ms of
every listing and every session-start hook, measured by ``benchmarks/records_bench.py``
(docs/ARCHITECTURE.md, "Records", has the figures and the choice). Record classes are
declared with this module's ``dataclass`` and ``field``:

* the type checker reads them through :mod:`dataclasses` itself (the ``TYPE_CHECKING``
  branch below), so constructors, fields, ``replace`` and ``asdict`` are checked exactly as
  for dataclasses (``tests/model/test_records_typing.py`` runs mypy on a misuse);
* at run time they are made by :mod:`gitrefocus.model.record_runtime`, ordinary code that
  mypy checks like the rest of the package: a class compiles its ``__init__`` only;
  equality, hashing, ``repr`` and frozenness are shared functions driven by its field names.

What is supported is what the package uses, each part behaving as the standard library's
does (held to it in ``tests/model/test_records.py``): ``dataclass(frozen=, slots=)``,
``field(default=, default_factory=, repr=, compare=)``, ``fields``, ``replace``, ``asdict``
and ``make_dataclass(name, names, slots=)``. No inheritance between records, no
``ClassVar``, ``InitVar``, ``kw_only``, ``order`` or ``__post_init__``: the type checker
would accept them, so the runtime refuses each with a TypeError when the class is made,
which any test importing the module shows.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no `typing` at run time: every listing and hook imports this module
if TYPE_CHECKING:
    from dataclasses import (
        FrozenInstanceError,
        asdict,
        dataclass,
        field,
        fields,
        make_dataclass,
        replace,
    )
else:
    from gitrefocus.model.record_runtime import (
        FrozenInstanceError,
        asdict,
        dataclass,
        field,
        fields,
        make_dataclass,
        replace,
    )

__all__ = ["FrozenInstanceError", "asdict", "dataclass", "field", "fields", "make_dataclass", "replace"]
