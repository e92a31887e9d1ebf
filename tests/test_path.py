"""The learner's path: which pages it holds, in which order, and the record pages carry."""

from __future__ import annotations

from lessonkit.path import (
    Lesson,
    nav_order,
    path_lessons,
    path_record,
    read_record,
    reading_order,
)

RECORD = {"print": "p/", "lessons": [{"url": "a/", "title": "A", "quizzes": ""}]}


def test_nav_order_reads_mkdocs_and_zensical_navs() -> None:
    mkdocs = [{"Home": "index.md"}, {"Learning path": ["a.md", {"B": "b.md"}]}]
    assert list(nav_order(mkdocs)) == [
        ("index.md", ()),
        ("a.md", ("Learning path",)),
        ("b.md", ("Learning path",)),
    ]
    zensical = [
        {
            "title": "Learning path",
            "url": None,
            "children": [{"title": "A", "url": "a.md", "children": []}],
        }
    ]
    assert list(nav_order(zensical)) == [("a.md", ("Learning path",))]


def test_reading_order_is_the_navs_else_the_hosts() -> None:
    assert reading_order([], ["index.md", "a.md"]) == [("index.md", ()), ("a.md", ())]
    nav = [("a.md", ("Learning path",))]
    assert reading_order(nav, ["index.md", "a.md"]) == [("a.md", ("Learning path",))]


def test_the_path_is_its_section_and_pages_that_say_path_true() -> None:
    nav = [("index.md", ()), ("a.md", ("Learning path",)), ("b.md", ("More",))]
    assert path_lessons(nav, {"b.md": {"path": True}}) == ["a.md", "b.md"]
    assert path_lessons(nav, {"a.md": {"path": False}}) == []


def test_the_record_reads_back_and_refuses_another_shape() -> None:
    assert path_record([Lesson("a.md", "A", "a/", "")], "p/") == RECORD
    written = {"print": "p/", "lessons": [{"quizzes": "", "title": "A", "url": "a/"}]}
    assert read_record(written) == RECORD
    assert read_record({"lessons": [1]}) is None
