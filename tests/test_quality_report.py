"""scripts/quality_report.py without Lighthouse: the plain twin's prose, the gzip server, the
budget's verdicts. (The Lighthouse run itself is too slow for the test suite.)"""

from __future__ import annotations

import gzip
import importlib.util
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def report():
    sys.path.insert(0, str(ROOT / "scripts"))  # as when it runs: its helper modules sit beside it
    spec = importlib.util.spec_from_file_location(
        "quality_report", ROOT / "scripts" / "quality_report.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_plain_twin_has_the_lessons_prose_and_nothing_of_lessonkit(
    report, built_site: Path, tmp_path: Path
) -> None:
    project = report.plain_project(tmp_path, built_site)
    lesson = (project / "docs" / "transformers-and-attention.md").read_text(encoding="utf-8")
    assert lesson.startswith("# Transformers and attention\n")
    assert "## " in lesson
    built = (built_site / "transformers-and-attention" / "index.html").read_text("utf-8")
    words = lesson.split()
    assert len(words) > 300  # the prose is there
    assert "lk-" not in lesson and "<" not in lesson  # words only, no lessonkit markup
    quiz_question = "In a model that reads left to right, what does attention let a token do?"
    assert quiz_question in built and quiz_question not in lesson  # the quiz is left out
    assert "name: material" in (project / "mkdocs.yml").read_text(encoding="utf-8")
    assert "lessonkit" not in (project / "mkdocs.yml").read_text(encoding="utf-8")


def test_the_server_gzips_text_and_answers_misses_with_the_sites_404(
    report, tmp_path: Path
) -> None:
    site = tmp_path / "lessonkit"
    site.mkdir()
    (site / "index.html").write_text("<p>" + "hello " * 500 + "</p>", encoding="utf-8")
    (site / "404.html").write_text("<h1>our 404</h1>", encoding="utf-8")
    with report.serve(tmp_path) as origin:
        request = urllib.request.Request(
            f"{origin}/lessonkit/", headers={"Accept-Encoding": "gzip"}
        )
        with urllib.request.urlopen(request) as response:
            assert response.headers["Content-Encoding"] == "gzip"
            body = response.read()
        assert len(body) < 200
        assert gzip.decompress(body).startswith(b"<p>hello hello")
        with urllib.request.urlopen(f"{origin}/lessonkit/") as response:  # no gzip asked
            assert response.headers["Content-Encoding"] is None
        with pytest.raises(urllib.error.HTTPError) as miss:
            urllib.request.urlopen(f"{origin}/lessonkit/deep/no-such-page/")
        assert miss.value.code == 404
        assert miss.value.read() == b"<h1>our 404</h1>"


def measure(report, perf: dict[str, int], others: int = 100, third_party=()):
    m = report.Measure()
    for form in report.FORMS:
        m.scores[form] = {c: others for c in report.CATEGORIES} | {"performance": perf[form]}
    m.third_party = list(third_party)
    return m


def test_the_budget_holds_only_when_every_item_does(report) -> None:
    plain = measure(report, {"mobile": 92, "desktop": 99}, others=91)
    good = measure(report, {"mobile": 93, "desktop": 99})
    axe = {"lessonkit/": {"violations": 0, "console errors": 0}}
    ok_assets = (4000, 9000, [])

    def broken(measures, axe=axe, own=ok_assets):
        return [c.item for c in report.budget(measures, axe, own) if not c.holds]

    both = dict.fromkeys(report.PAGES)
    assert (
        broken(
            {
                (s, p): good if s == "lessonkit" else plain
                for s in ("lessonkit", "plain")
                for p in both
            }
        )
        == []
    )

    slow = measure(report, {"mobile": 89, "desktop": 100})  # beats plain, but under 90
    found = broken({("lessonkit", p): slow for p in both} | {("plain", p): plain for p in both})
    assert found == [f"{page} mobile: performance ≥ plain and ≥ 90" for page in report.PAGES]
    assert "lesson mobile: performance ≥ plain and ≥ 90" in found

    leaky = measure(report, {"mobile": 95, "desktop": 100}, third_party=["https://fonts.x/a"])
    seo = measure(report, {"mobile": 95, "desktop": 100}, others=99)
    found = broken(
        {("lessonkit", p): good for p in both}
        | {("lessonkit", "lesson"): leaky, ("lessonkit", "landing"): seo}
        | {("plain", p): plain for p in both}
    )
    assert "lesson: zero third-party requests" in found
    assert "landing mobile: accessibility, best practices, SEO 100" in found

    goods = {("lessonkit", p): good for p in both} | {("plain", p): plain for p in both}
    assert broken(goods, own=(9000, 9000, [])) == ["lessonkit CSS+JS ≤ 17 KiB gzipped"]
    bad_axe = {"lessonkit/": {"violations": 1, "console errors": 0}}
    assert broken(goods, axe=bad_axe) == ["zero axe violations (1 pages × 2)"]


def test_the_measured_column_says_none_not_empty_brackets(report) -> None:
    good = measure(report, {"mobile": 95, "desktop": 100})
    axe = {"lessonkit/": {"violations": 0, "console errors": 0}}
    measures = {(s, p): good for s in ("lessonkit", "plain") for p in report.PAGES}
    details = [c.detail for c in report.budget(measures, axe, (4000, 9000, []))]
    assert not [d for d in details if d in ("{}", "[]")], details
    assert "all 100" in details and "none" in details
