"""Every page's SVG figures, held from conversion until the page is written.

All the site's figures wait at once, and an SVG is most of a lesson page's weight: up to
:data:`BUDGET` they wait as they are, past it compressed (bounds memory).

>>> waiting = Waiting(budget=20)
>>> small, large = "<svg><g/></svg>", "<svg>" + "<g/>" * 50 + "</svg>"
>>> waiting["a.md"], waiting["b.md"] = [small], [large]  # 15 characters, then 211
>>> waiting.weight < len(small) + len(large) // 2  # the second, past the budget, compressed
True
>>> waiting["c.md"] = waiting.packed("b.md")  # put back as held: not compressed again
>>> waiting.packed("c.md") == waiting.packed("b.md"), waiting["c.md"] == [large]
(True, True)
>>> waiting.pop("b.md") == [large], waiting["a.md"] == [small], len(waiting)
(True, True, 2)
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, MutableMapping

BUDGET = 2 * 2**20
"""SVG characters held as they are; this lesson copied 1,000 times holds 8 MB, not 29 MB."""


class Waiting(MutableMapping[str, list[str]]):
    """Each page's figures: as they are up to ``budget`` characters in all, compressed past it."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self._pages: dict[str, list[str] | list[bytes]] = {}
        self._plain = 0  # characters held as they are

    @property
    def weight(self) -> int:
        """Characters held as they are, plus bytes compressed."""
        return sum(len(figure) for figures in self._pages.values() for figure in figures)

    def __getitem__(self, page: str) -> list[str]:
        return [f if isinstance(f, str) else zlib.decompress(f).decode() for f in self._pages[page]]

    def __setitem__(self, page: str, figures: list[str] | list[bytes]) -> None:
        """Hold a page's figures: SVG text, or figures :meth:`packed` before (kept as they are)."""
        if page in self._pages:  # a page converted again (a serve's rebuild): its old ones go
            del self[page]
        size = sum(len(f) for f in figures if isinstance(f, str))
        if self._plain + size <= self.budget:
            self._pages[page], self._plain = list(figures), self._plain + size
        else:
            self._pages[page] = [
                f if isinstance(f, bytes) else zlib.compress(f.encode(), 1) for f in figures
            ]

    def packed(self, page: str) -> list[str] | list[bytes]:
        """A page's figures as held, for :meth:`__setitem__`."""
        return list(self._pages.get(page, []))

    def __delitem__(self, page: str) -> None:
        figures = self._pages.pop(page)
        self._plain -= sum(len(f) for f in figures if isinstance(f, str))

    def __contains__(self, page: object) -> bool:  # without unpacking the page's figures
        return page in self._pages

    def __iter__(self) -> Iterator[str]:
        return iter(self._pages)

    def __len__(self) -> int:
        return len(self._pages)
