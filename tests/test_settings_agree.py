"""`lessonkit check` and the build read lessonkit's options with one schema and agree on them."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessonkit.cli import main

PAGE = "---\ntitle: Lesson\ndescription: One term.\n---\n\n# Lesson\n\nA [[tokn]] here.\n"
GLOSSARY = "- term: token\n  definition: A piece of text.\n"


def _site(root: Path, options: str, glossary: str | None = "glossary.yml") -> Path:
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text(PAGE)
    if glossary:
        (root / "docs" / glossary).write_text(GLOSSARY)
    plugin = "  - lessonkit:\n" + "".join(f"      {line}\n" for line in options.splitlines())
    (root / "mkdocs.yml").write_text(f"site_name: t\nplugins:\n{plugin}")
    return root


def _both(site: Path, mkdocs_build_shared, monkeypatch, capsys) -> tuple[int, str, int, str]:
    monkeypatch.chdir(site)
    code = main(["check"])
    captured = capsys.readouterr()
    built = mkdocs_build_shared(site)
    return code, captured.out + captured.err, built.returncode, built.stderr


@pytest.mark.parametrize(
    ("options", "glossary", "expected"),
    [
        # A glossary named but missing: both fail (check used to skip glossary checks silently).
        ("glossary: words.yml", None, "docs/words.yml: error: can't read the glossary"),
        # glossary: null means "not set", so the site's glossary.yml is used by both.
        ("glossary: null", "glossary.yml", "docs/index.md:8: error: unknown glossary term 'tokn'"),
        ("workers: 1", "glossary.yml", "docs/index.md:8: error: unknown glossary term 'tokn'"),
        # A misspelt option: both fail, with a did-you-mean.
        ("worker: 1", "glossary.yml", "unknown lessonkit option 'worker'"),
    ],
)
def test_check_and_build_agree_on_the_options(
    tmp_path: Path,
    options: str,
    glossary: str | None,
    expected: str,
    mkdocs_build_shared,
    monkeypatch,
    capsys,
) -> None:
    site = _site(tmp_path, options, glossary)
    check_code, check_out, build_code, build_err = _both(
        site, mkdocs_build_shared, monkeypatch, capsys
    )
    assert check_code == 1 and expected in check_out, check_out
    assert build_code != 0
    if "option" in expected:  # MkDocs validates the schema itself, in its own words
        assert "option 'worker': Unrecognised configuration name: worker" in build_err, build_err
    else:
        assert expected in build_err, build_err


def test_an_empty_glossary_option_turns_the_glossary_off_for_both(
    tmp_path: Path, mkdocs_build_shared, monkeypatch, capsys
) -> None:
    site = _site(tmp_path, "glossary: ''\nworkers: 1")
    (site / "docs" / "index.md").write_text(PAGE.replace("[[tokn]]", "token"))
    check_code, check_out, build_code, build_err = _both(
        site, mkdocs_build_shared, monkeypatch, capsys
    )
    assert check_code == 0, check_out
    assert build_code == 0, build_err


def test_the_output_limit_is_a_site_option(tmp_path: Path, mkdocs_build_shared) -> None:
    page = "---\ntitle: L\ndescription: L.\n---\n# L\n\n```python exec\nprint('x' * 5000)\n```\n"
    site = _site(tmp_path, "workers: 1\noutput_limit: 1000", glossary=None)
    (site / "docs" / "index.md").write_text(page)
    built = mkdocs_build_shared(site)
    assert built.returncode != 0
    assert "docs/index.md:7: error: output too large" in built.stderr, built.stderr
    assert "lessonkit option output_limit" in built.stderr
