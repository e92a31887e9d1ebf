"""Examples of the host adapters' helpers, moved here from their docstrings."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace as NS

from lessonkit.core.page import Page as Lesson
from lessonkit.core.settings import Settings
from lessonkit.hosts import extension_name, missing_extensions
from lessonkit.hosts.mkdocs.notebook_pages import nav_to_pages
from lessonkit.hosts.mkdocs.serve import merge
from lessonkit.hosts.standalone.page import as_written, page_title
from lessonkit.hosts.standalone.records import Converted, Records
from lessonkit.hosts.standalone.site import SiteConfig, nav_titles
from lessonkit.hosts.zensical import CONTEXT, page_context
from lessonkit.quiz import QuizExtension


def test_a_dirty_rebuild_s_search_index_keeps_every_page_once() -> None:
    old = {
        "a/": [{"location": "a/", "text": "old a"}],
        "b/": [{"location": "b/"}],
        "gone/": [{"location": "gone/"}],
    }
    new = [
        {"location": "a/", "text": "old a"},
        {"location": "b/"},
        {"location": "gone/"},
        {"location": "glossary/"},
        {"location": "a/", "text": "new a"},
        {"location": "a/#x", "text": "new x"},
        {"location": "glossary/"},
    ]
    merged = merge(new, ["a/", "b/"], ["a/"], old)
    assert [e["location"] for e in merged] == ["a/", "a/#x", "b/", "glossary/"]
    assert [e.get("text") for e in old["a/"]] == ["new a", "new x"]
    assert sorted(old) == ["a/", "b/"]  # a page gone is forgotten


def test_zensical_s_rendering_context_names_the_page_and_site() -> None:
    processor = NS(page=NS(path="a/b.md", url="a/b/"), config={"root_dir": "/site"})
    assert page_context(NS(preprocessors={CONTEXT: processor}))[:3] == (
        "a/b.md",
        "a/b/",
        Path("/site"),
    )
    assert page_context(NS(preprocessors={})) is None  # another host


def test_a_conversion_record_reads_back(tmp_path: Path) -> None:
    store = Records(tmp_path / "pages.json")
    store.put("k", Converted("T", "t/", "<p>x</p>", "<p>x</p>"), {})
    store.save()
    assert Records(store.file).get("k") == Converted("T", "t/", "<p>x</p>", "<p>x</p>")


def test_a_page_s_title_as_mkdocs_gives_it() -> None:
    h1 = [{"level": 1, "name": "Q&amp;A", "children": []}]
    assert page_title({}, h1, "qa.md", None) == "Q&A"
    assert page_title({}, [], "index.md", None) == "Home"
    assert page_title({}, [], "a/first_steps.md", None) == "First steps"
    assert page_title({"title": "A short history"}, [], "history.md", "History") == "History"


def test_nav_titles_in_mkdocs_and_zensical_form() -> None:
    mkdocs = [{"Home": "index.md"}, {"Part": ["a.md", {"B": "b/c.md"}]}]
    assert nav_titles(mkdocs) == {"index.md": "Home", "b/c.md": "B"}
    child = {"title": "B", "url": "b/c.md", "children": []}
    assert nav_titles([{"title": "Part", "url": None, "children": [child]}]) == {"b/c.md": "B"}


def test_a_site_s_folders_and_urls_from_mkdocs_yml() -> None:
    options = {"site_url": "https://o.github.io/r", "use_directory_urls": False}
    config = SiteConfig.of(options, Path("/site"), Settings())
    assert config.docs_dir == Path("/site/docs")
    assert config.page_url("a/b.md") == "a/b.html"
    assert config.canonical_url("a/b.html") == "https://o.github.io/r/a/b.html"


def test_lessonkit_adds_only_the_extensions_a_site_does_not_list() -> None:
    assert extension_name("pymdownx.superfences") == "pymdownx.superfences"
    assert extension_name(QuizExtension()) == "lessonkit.quiz"
    listed = ["attr_list", "fenced_code"]
    assert [extension_name(e) for e in missing_extensions(listed)] == ["lessonkit.quiz"]


def test_a_page_is_as_written_whatever_its_newlines() -> None:
    page = Lesson.from_text("---\ntitle: T\n---\n\n# T\n", "t.md")
    assert as_written("\r\n# T\r\n", page)
    assert not as_written("# U\n", page)


def test_a_nav_entry_naming_a_notebook_names_its_page() -> None:
    nav = ["a.ipynb", {"S": [{"B": "s/b.ipynb"}, "c.md"]}]
    pages = {"a.ipynb": "a.md", "s/b.ipynb": "s/b.md"}
    assert nav_to_pages(nav, pages) == ["a.md", {"S": [{"B": "s/b.md"}, "c.md"]}]
