"""Across builds: a damaged or read-only cache warns and the site is still right; a full build
keeps only the entries it used, a serve rebuild prunes nothing."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from lessonkit.core.settings import Settings
from lessonkit.execute.engine import Engine
from lessonkit.execute.program import parse_program

CONFIG = "site_name: s\nplugins:\n  - lessonkit:\n      workers: 1\n"
PAGE = "# {name}\n\n```python exec\nvalue = {value}\n```\n\nThe value is {{{{ value }}}}.\n"


CACHE = Settings().cache_dir


def _entries(site: Path) -> list[Path]:
    return sorted((site / CACHE).glob("*.json"))


def _value(site: Path, page: str) -> str:
    html = (site / "site" / page / "index.html").read_text()
    return re.search(r"The value is (\S+)\.", html)[1]


def _write(site: Path, name: str, value: str) -> None:
    (site / "docs" / f"{name}.md").write_text(PAGE.format(name=name, value=value))


def test_a_full_build_prunes_and_cache_faults_only_warn(
    tmp_path: Path, mkdocs_build, read_only
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    _write(tmp_path, "a", "1")
    _write(tmp_path, "b", "2")
    assert mkdocs_build(tmp_path).returncode == 0
    assert len(_entries(tmp_path)) == 2

    # Garbage in b's entry, and an edit of a: a strict build passes, warns, and is right.
    for entry in _entries(tmp_path):
        entry.write_bytes(b"\x00garbage\xff")
    _write(tmp_path, "a", "10 + 1")
    build = mkdocs_build(tmp_path)
    assert build.returncode == 0, build.stderr
    assert build.stderr.count("warning: cache entry is not a lessonkit cache entry") == 1
    assert "Traceback" not in build.stderr
    assert (_value(tmp_path, "a"), _value(tmp_path, "b")) == ("11", "2")
    assert len(_entries(tmp_path)) == 2  # a's first entry is gone: this build did not use it

    # Five more edits, run (as under serve, which prunes nothing), and a deleted page: the
    # next full build leaves one entry for the one live page.
    engine = Engine(tmp_path / CACHE, workers=1, timeout=30)
    for value in ("12", "13", "14", "15", "16"):
        program = parse_program(PAGE.format(name="a", value=value), page="a.md")
        assert engine.result(program, "docs/a.md").ok
    engine.close()
    assert len(_entries(tmp_path)) == 7
    (tmp_path / "docs" / "b.md").unlink()
    _write(tmp_path, "a", "17")
    assert mkdocs_build(tmp_path).returncode == 0
    assert len(_entries(tmp_path)) == 1

    # A cache folder that cannot be written: the edit still shows, with one warning.
    _write(tmp_path, "a", "99")
    with read_only(tmp_path / CACHE):
        build = mkdocs_build(tmp_path)
    assert build.returncode == 0, build.stderr
    assert _value(tmp_path, "a") == "99"
    assert build.stderr.count("warning: the cache folder cannot be written") == 1
    assert "Traceback" not in build.stderr


def test_a_cache_dir_that_is_a_file_warns_and_the_site_builds(tmp_path: Path, mkdocs_build) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    (tmp_path / CACHE).parent.mkdir(parents=True)
    (tmp_path / CACHE).write_text("a file where the cache folder goes")
    _write(tmp_path, "a", "6 * 7")
    build = mkdocs_build(tmp_path)
    assert build.returncode == 0, build.stderr
    assert _value(tmp_path, "a") == "42"
    assert build.stderr.count("warning: the cache folder is a file, not a folder") == 1
    assert "Traceback" not in build.stderr


def _backdated(cache: Path) -> list[Path]:
    entries = list(cache.glob("*.json"))
    for entry in entries:
        os.utime(entry, (time.time() - 3600,) * 2)
    return entries


def _build(cache: Path, pages: dict[str, str], *, prune: bool) -> None:
    engine = Engine(cache, workers=1, timeout=30)
    for name, text in pages.items():
        assert engine.result(parse_program(text, page=name), f"docs/{name}").ok
    engine.close(prune=prune)


def test_a_serve_rebuild_prunes_nothing_a_full_build_prunes_what_it_did_not_use(
    tmp_path: Path,
) -> None:
    pages = {
        "a.md": "```python exec\nprint(1)\n```\n",
        "b.md": "```python exec\nprint(2)\n```\n",
    }
    _build(tmp_path, pages, prune=True)
    assert len(_backdated(tmp_path)) == 2  # as if that build ran an hour ago
    _build(tmp_path, {"a.md": pages["a.md"]}, prune=False)  # a serve rebuild of one page
    assert len(_backdated(tmp_path)) == 2
    _build(tmp_path, {"a.md": pages["a.md"]}, prune=True)
    assert len(list(tmp_path.glob("*.json"))) == 1


HOOK = """\
import json
import sys


WORKER_CODE = (
    "lessonkit.execute.worker",
)


def on_post_build(config):
    held = [name for name in WORKER_CODE if name in sys.modules]
    with open("held.json", "w") as out:
        json.dump(held, out)
"""


def test_a_warm_build_loads_no_worker_code(tmp_path: Path, mkdocs_build) -> None:
    # A warm build runs no page: it pays for no process machinery; the first build, which
    # runs one, shows the hook would see it.
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(CONFIG + "hooks: [hook.py]\n")
    (tmp_path / "hook.py").write_text(HOOK)
    _write(tmp_path, "a", "1")
    held = []
    for _ in range(2):
        build = mkdocs_build(tmp_path)
        assert build.returncode == 0, build.stderr
        held.append(json.loads((tmp_path / "held.json").read_text()))
    first = ["lessonkit.execute.worker"]
    assert held == [first, []]
