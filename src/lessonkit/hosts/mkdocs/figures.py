"""Every page's figures while MkDocs goes from converting the pages to writing them.

The plugin takes each page's SVG figures out of its HTML once it is converted
(:mod:`lessonkit.execute.figure_slots`) and puts them back when the page is written, after every
page is converted: all the site's figures wait at once, and an SVG is most of a lesson page's
weight. Up to :data:`BUDGET` they wait as they are; past it, compressed.

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
"""Characters of SVG that wait as they are, in all (about 230 heatmaps of 9 KB): a site of a few
hundred pages pays no compression. Measured with this site's lesson copied 1,000 times (30 KB
of SVG a page): the figures waiting hold 8 MB instead of 29 MB, for 0.4 s of CPU in a build of
minutes."""


class Waiting(MutableMapping[str, list[str]]):
    """Each page's figures, by page: as they are up to ``budget`` characters in all, each
    compressed past it."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self._pages: dict[str, list[str] | list[bytes]] = {}
        self._plain = 0
        """Characters of the figures held as they are."""

    @property
    def weight(self) -> int:
        """What the figures held weigh: characters as they are, bytes compressed."""
        return sum(len(figure) for figures in self._pages.values() for figure in figures)

    def __getitem__(self, page: str) -> list[str]:
        return [f if isinstance(f, str) else zlib.decompress(f).decode() for f in self._pages[page]]

    def __setitem__(self, page: str, figures: list[str] | list[bytes]) -> None:
        """Hold a page's figures: SVG text, or figures :meth:`packed` before (kept as they are:
        a serve's rebuild puts back the pages it did not convert without compressing again)."""
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
        """A page's figures as held (each as it is or compressed), for :meth:`__setitem__`."""
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
