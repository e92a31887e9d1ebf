"""Regular expressions compiled when first used, not when their module is imported.

The modules a build loads hold 68 patterns, most for what few pages have (quizzes, links,
notebooks, the print page); compiling them all at import cost every build 40 million
instructions, 0.7 % of a warm 20-page build, and a build of plain pages uses nine of them.
A :func:`lazy` pattern compiles on its first use and then keeps the compiled pattern's methods
as its own attributes, so a use costs what a compiled pattern's does.

>>> WORD = lazy(r"(?P<word>\\w+)")
>>> WORD.compiled is None
True
>>> WORD.findall("two words"), WORD.pattern
(['two', 'words'], '(?P<word>\\\\w+)')
>>> WORD.compiled
re.compile('(?P<word>\\\\w+)')

A copy, or one sent to another process, is the same lazy pattern:

>>> import copy, pickle
>>> copy.copy(WORD).findall("a b"), pickle.loads(pickle.dumps(WORD)).match("c")[0]
(['a', 'b'], 'c')

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
        # Only reached for what the instance lacks: the first use of each attribute. Special
        # names (copy and pickle ask for some) are not the pattern's to give.
        if name.startswith("__") or "_source" not in self.__dict__:
            raise AttributeError(name)
        if self.compiled is None:
            self.compiled = re.compile(*self._source)
        value = getattr(self.compiled, name)
        setattr(self, name, value)  # later uses find it on the instance
        return value

    def __reduce__(self) -> tuple[Any, tuple[str, int]]:
        return Lazy, self._source

    def __repr__(self) -> str:
        pattern, flags = self._source
        return f"lazy({pattern!r}{f', {flags!r}' if flags else ''})"


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done when the pattern is first used."""
    return cast("re.Pattern[str]", Lazy(pattern, flags))
