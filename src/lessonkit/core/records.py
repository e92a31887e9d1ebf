"""lessonkit's records are ``typing.NamedTuple`` classes: ``class Step(NamedTuple):``.

``Record`` is ``typing.NamedTuple`` under its old name, for the modules that still import it
from here (execute/, core/, path/, the standalone host); new code imports ``NamedTuple``.

>>> class Point(Record):
...     x: int
...     y: int = 0
>>> Point(3), Point(3)._replace(y=1)
(Point(x=3, y=0), Point(x=3, y=1))
"""

from typing import NamedTuple as Record

__all__ = ["Record"]
