"""Every page's figures while MkDocs goes from converting the pages to writing them.

The plugin takes each page's SVG figures out of its HTML once it is converted
(:mod:`lessonkit.execute.figure_slots`) and puts them back when the page is written, after every
page is converted: all the site's figures wait at once, and an SVG is most of a lesson page's
weight. They wait compressed.

>>> waiting = Waiting()
>>> waiting["a.md"] = ["<svg><g/></svg>"]
>>> waiting.pop("a.md"), len(waiting)
(['<svg><g/></svg>'], 0)
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, MutableMapping


class Waiting(MutableMapping[str, list[str]]):
    """Each page's figures, by page, each SVG compressed (fast zlib: about a fifth of its size,
    some 0.1 ms a figure)."""

    def __init__(self) -> None:
        self._packed: dict[str, list[bytes]] = {}

    def __getitem__(self, page: str) -> list[str]:
        return [zlib.decompress(svg).decode() for svg in self._packed[page]]

    def __setitem__(self, page: str, figures: list[str]) -> None:
        self._packed[page] = [zlib.compress(svg.encode(), 1) for svg in figures]

    def __delitem__(self, page: str) -> None:
        del self._packed[page]

    def __iter__(self) -> Iterator[str]:
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)
