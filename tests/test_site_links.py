"""Every internal link and anchor in the built HTML resolves, as served under the sub-path.

mkdocs' strict mode checks the Markdown's links; this checks what a reader's browser gets: every
``href`` and ``src`` of every built page (theme, plugin and generated links included), resolved
relative to the page's URL under ``/lessonkit/``, names a file of the site and, with a
``#fragment``, an element with that id on the target page.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urljoin, urlsplit

import pytest

ORIGIN = "http://site.invalid"
"""A stand-in origin: only the path matters, and it must stay under the sub-path.

The site folder's name is the sub-path it is served under (``<tmp>/lessonkit`` is served at
``/lessonkit/``, as in tests/conftest.py)."""

LINK_ATTRIBUTES = {"href", "src"}


class _Page(HTMLParser):
    """Collects the ids and the link targets (tag, attribute, value) of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id":
                self.ids.add(value)
            elif name in LINK_ATTRIBUTES:
                self.links.append((tag, name, value))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def page_url(site: Path, html: Path) -> str:
    """The URL a built file is served at: ``a/index.html`` is ``/lessonkit/a/``.

    >>> page_url(Path("/s/lessonkit"), Path("/s/lessonkit/a/index.html"))
    'http://site.invalid/lessonkit/a/'
    >>> page_url(Path("/s/lessonkit"), Path("/s/lessonkit/404.html"))
    'http://site.invalid/lessonkit/404.html'
    """
    relative = html.relative_to(site).as_posix()
    return urljoin(f"{ORIGIN}/{site.name}/", relative.removesuffix("index.html"))


def target_file(site: Path, url: str) -> Path | None:
    """The file of the site that serves ``url``, or None when it is outside the sub-path.

    >>> target_file(Path("/s/lessonkit"), "http://site.invalid/lessonkit/a/")
    PosixPath('/s/lessonkit/a/index.html')
    >>> target_file(Path("/s/lessonkit"), "http://site.invalid/elsewhere/a.css") is None
    True
    """
    path = unquote(urlsplit(url).path)
    prefix = f"/{site.name}/"
    if not path.startswith(prefix):
        return None
    relative = PurePosixPath(path.removeprefix(prefix))
    target = site.joinpath(*relative.parts)
    return target / "index.html" if path.endswith("/") or not relative.parts else target


def broken_links(site: Path) -> list[str]:
    """One line per link of the built site that does not resolve: ``page: tag attr=value (why)``."""
    pages = {html: _parse(html) for html in sorted(site.rglob("*.html"))}
    problems = []
    for html, parsed in pages.items():
        here = page_url(site, html)
        for tag, attribute, value in parsed.links:
            if tag == "link" and attribute == "href" and value.startswith(("http:", "https:")):
                continue  # canonical and alternate links name the public address
            url = urljoin(here, value.strip())
            parts = urlsplit(url)
            if f"{parts.scheme}://{parts.netloc}" != ORIGIN:
                continue  # another site, or mailto:, javascript:, data:
            where = f"{html.relative_to(site)}: <{tag} {attribute}={value!r}>"
            target = target_file(site, url)
            if target is None:
                problems.append(f"{where} (leaves /{site.name}/: breaks under a sub-path)")
            elif not target.is_file():
                problems.append(f"{where} (no file {target.relative_to(site)})")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{where} (no id {parts.fragment!r} there)")
    return problems


def test_the_checker_finds_a_missing_page_a_missing_anchor_and_a_root_absolute_link(
    tmp_path: Path,
) -> None:
    site = tmp_path / "lessonkit"
    (site / "a").mkdir(parents=True)
    (site / "a" / "index.html").write_text('<h2 id="here">A</h2>', encoding="utf-8")
    (site / "index.html").write_text(
        '<a href="a/#here">ok</a> <a href="a/#gone">x</a> <a href="b/">x</a>'
        ' <img src="/img.png"> <a href="https://example.org/">other site</a>',
        encoding="utf-8",
    )
    problems = broken_links(site)
    assert len(problems) == 3, problems
    assert "no id 'gone'" in problems[0]
    assert "no file b/index.html" in problems[1]
    assert "leaves /lessonkit/" in problems[2]


def test_every_internal_link_and_anchor_of_the_built_site_resolves(built_site: Path) -> None:
    pages = list(built_site.rglob("*.html"))
    assert len(pages) >= 5, "the site has its pages"
    assert broken_links(built_site) == []


@pytest.mark.parametrize("page", ["index.html", "404.html"])
def test_pages_link_their_assets_so_they_load_under_the_sub_path(
    built_site: Path, page: str
) -> None:
    """The landing page and the 404 page (served at any depth) link stylesheets that exist."""
    parsed = _parse(built_site / page)
    sheets = [v for tag, a, v in parsed.links if tag == "link" and v.endswith(".css")]
    assert any("lessonkit.css" in sheet for sheet in sheets), sheets
    if page == "404.html":  # served for any missing URL, so its links must not be relative
        assert all(sheet.startswith(f"/{built_site.name}/") for sheet in sheets), sheets
