"""Every page's SVG figures, held compressed from conversion until the page is written.

All the site's figures wait at once, and an SVG is most of a lesson page's weight. Compressed,
this site's 143 KB of figures hold 26 KB, for about 1 ms a build: it bounds memory (a warm
200-page build peaked 1.05x the old code's without it: `scripts/benchmark.py --pages 200`).

>>> waiting, figure = Waiting(), "<svg>" + "<g/>" * 50 + "</svg>"
>>> waiting["a.md"] = [figure]
>>> waiting["b.md"] = waiting.packed("a.md")  # put back as held: not compressed again
>>> waiting.pop("a.md") == waiting["b.md"] == [figure], "a.md" in waiting, len(waiting)
(True, False, 1)
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, MutableMapping


class Waiting(MutableMapping[str, list[str]]):
    """Each page's figures, compressed."""

    def __init__(self) -> None:
        self._pages: dict[str, list[bytes]] = {}

    def __getitem__(self, page: str) -> list[str]:
        return [zlib.decompress(figure).decode() for figure in self._pages[page]]

    def __setitem__(self, page: str, figures: list[str] | list[bytes]) -> None:
        """Hold a page's figures: SVG text, or figures :meth:`packed` before."""
        self._pages[page] = [
            f if isinstance(f, bytes) else zlib.compress(f.encode(), 1) for f in figures
        ]

    def packed(self, page: str) -> list[bytes]:
        """A page's figures as held, for :meth:`__setitem__`."""
        return list(self._pages.get(page, []))

    def __delitem__(self, page: str) -> None:
        del self._pages[page]

    def __contains__(self, page: object) -> bool:  # without unpacking the page's figures
        return page in self._pages

    def __iter__(self) -> Iterator[str]:
        return iter(self._pages)

    def __len__(self) -> int:
        return len(self._pages)
