"""``Record`` is ``typing.NamedTuple``; it goes once execute/ stops importing it."""

from typing import NamedTuple as Record

__all__ = ["Record"]
