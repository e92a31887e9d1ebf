"""Regular expressions compiled when first used, not when their module is imported.

lessonkit's modules hold about seventy patterns, most for what few pages have (quizzes, links,
notebooks, the print page); compiling them all at import cost every build about 30 million
instructions, 0.6 % of a warm 20-page build, and a build of plain pages uses nine of them.
A :func:`lazy` pattern compiles on its first use and then keeps the compiled pattern's methods
as its own attributes, so a use costs what a compiled pattern's does.

>>> WORD = lazy(r"(?P<word>\\w+)")
>>> WORD.compiled is None
True
>>> WORD.findall("two words"), WORD.pattern
(['two', 'words'], '(?P<word>\\\\w+)')
>>> WORD.compiled
re.compile('(?P<word>\\\\w+)')

A module-level pattern is only ever used through its methods and attributes: ``re.sub(PATTERN,
...)`` wants a compiled pattern or a string.
"""

from __future__ import annotations

import re
from typing import Any, cast


class Lazy:
    """A pattern and its flags, compiled on first use (see :func:`lazy`)."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)
        self.compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        # Only reached for what the instance lacks: the first use of each attribute.
        if self.compiled is None:
            self.compiled = re.compile(*self._source)
        value = getattr(self.compiled, name)
        setattr(self, name, value)  # later uses find it on the instance
        return value

    def __repr__(self) -> str:
        return f"lazy({self._source[0]!r})"


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done when the pattern is first used."""
    return cast("re.Pattern[str]", Lazy(pattern, flags))
