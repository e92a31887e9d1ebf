"""Immutable records: ``typing.NamedTuple`` classes, made without compiling their annotations.

Every lessonkit module uses ``from __future__ import annotations``, so a class body's
annotations are strings, and ``typing.NamedTuple`` turns each into a ``ForwardRef``, compiling it,
as the class is made: 0.17 million instructions a field, 12 million for the 72 fields of the
records a build loads (0.2 % of a 20-page warm build, which lessonkit's 3 % allowance counts).
:class:`Record` makes the same class, a ``collections.namedtuple`` with the body's defaults,
methods and docstrings, and keeps the annotations as written: ``typing.get_type_hints`` reads them
when something asks (the cache's decoder does, for the records an entry holds). Type checkers
see ``typing.NamedTuple`` itself.

>>> class Point(Record):
...     '''A point.'''
...     x: int
...     y: int = 0
...     def norm(self) -> int:
...         return abs(self.x) + abs(self.y)
>>> p = Point(3, -4)
>>> p, p.norm(), p._replace(y=1), Point(2), Point.__doc__, Point._fields
(Point(x=3, y=-4), 7, Point(x=3, y=1), Point(x=2, y=0), 'A point.', ('x', 'y'))
>>> import typing; typing.get_type_hints(Point)
{'x': <class 'int'>, 'y': <class 'int'>}
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
_PROHIBITED = frozenset(
    {"_fields", "_field_defaults", "__init__", "__new__", "__slots__", "__getnewargs__"}
    | {"_make", "_replace", "_source", "_asdict"}
)
"""As ``typing.NamedTuple`` has them: what a record's body may not define, and what it keeps."""


class _RecordMeta(type):
    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        if not bases:  # Record itself
            return super().__new__(mcls, name, bases, namespace)
        if bases != (Record,):
            raise TypeError("a record derives from Record alone")
        if "__annotations__" not in namespace and "__annotate__" in namespace:
            raise TypeError(f"{name}: a record's module needs from __future__ import annotations")
        annotations = namespace.get("__annotations__", {})
        fields = list(annotations)
        first = next((n for n, field in enumerate(fields) if field in namespace), len(fields))
        if any(field not in namespace for field in fields[first:]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        defaults = [namespace[field] for field in fields[first:]]
        record = collections.namedtuple(
            name, fields, defaults=defaults, module=namespace["__module__"]
        )
        record.__annotations__ = dict(annotations)
        for key, value in namespace.items():
            if key in _PROHIBITED:
                raise AttributeError(f"{name}: a record may not define {key}")
            if key not in _SPECIAL and key not in annotations:
                setattr(record, key, value)
        return record


if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:

    class Record(metaclass=_RecordMeta):
        """The base of a record: ``class Step(Record):`` as one writes ``NamedTuple``."""
