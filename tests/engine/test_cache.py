"""The cache serves only what is still true: corrupt, stale or failed entries are never used."""

import os
from pathlib import Path

from lessonkit.core.problems import Problem
from lessonkit.execute.cache import Cache
from lessonkit.execute.digests import file_digest
from lessonkit.execute.results import PageResult, StepResult
from lessonkit.execute.unchanged import source_digest


def test_truncated_entry_is_a_miss_and_is_removed(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.put("k", PageResult(steps=[StepResult(stdout="x")]))
    entry = tmp_path / "k.json"
    entry.write_text(entry.read_text()[:40])
    assert cache.get("k") is None
    assert not entry.exists()


def test_tampered_entry_fails_its_checksum(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.put("k", PageResult(steps=[StepResult(stdout="0.84")]))
    entry = tmp_path / "k.json"
    entry.write_text(entry.read_text().replace("0.84", "0.99"))
    assert "0.99" in entry.read_text()
    assert cache.get("k") is None


def test_editing_a_data_file_the_page_read_invalidates_the_entry(tmp_path: Path) -> None:
    data = tmp_path / "scores.csv"
    data.write_text("3,1,0")
    cache = Cache(tmp_path / "cache")
    from lessonkit.execute.filewatch import file_digest

    cache.put("k", PageResult(steps=[StepResult()], reads={str(data): file_digest(data)}))
    assert cache.get("k") is not None
    data.write_text("2,1,0")
    assert cache.get("k") is None


def _rewrite_in_the_same_tick(path: Path, text: str) -> None:
    """Rewrite ``path`` as a second save within its file system's timestamp granularity does
    (Linux before 6.13 stamps files from a clock that ticks every few milliseconds): same size,
    same mtime."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_data_file_rewritten_within_its_mtime_s_tick_invalidates_the_entry(
    tmp_path: Path,
) -> None:
    """A file changed just before its entry was stored (within ``digests.RACY``) is read again
    at each lookup, not taken from what an earlier lookup read at the same mtime and size."""
    data = tmp_path / "scores.csv"
    data.write_text("3,1,0")
    cache = Cache(tmp_path / "cache")
    cache.put("k", PageResult(steps=[StepResult()], reads={str(data): file_digest(data)}))
    assert cache.get("k") is not None
    _rewrite_in_the_same_tick(data, "2,1,0")
    assert cache.get("k") is None


def test_a_module_rewritten_within_its_mtime_s_tick_invalidates_the_entry(
    tmp_path: Path,
) -> None:
    module = tmp_path / "helpers.py"
    module.write_text("VALUE = 1\n")
    cache = Cache(tmp_path / "cache")
    sources = {str(module): source_digest(str(module))}
    cache.put("k", PageResult(steps=[StepResult()], sources=sources))
    assert cache.get("k") is not None
    _rewrite_in_the_same_tick(module, "VALUE = 2\n")
    assert cache.get("k") is None


def test_failed_results_are_never_stored(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.put("k", PageResult(problems=[Problem("boom", 3)]))
    assert cache.get("k") is None
    assert list(tmp_path.iterdir()) == []


def test_a_result_with_a_warning_is_served_with_the_same_warning(tmp_path: Path) -> None:
    """A page that ran with a warning is stored, and its warning is a field-by-field object
    in the entry (the format entries had before ``Problem`` became a ``NamedTuple``)."""
    import json

    cache = Cache(tmp_path)
    warned = Problem("slow block", 3, "split it", severity="warning", details="line 3: x")
    cache.put("k", PageResult(steps=[StepResult(stdout="x")], problems=[warned]))
    assert cache.get("k").problems == [warned]
    payload = json.loads((tmp_path / "k.json").read_bytes().partition(b"\n")[2])
    assert payload["result"]["problems"][0]["hint"] == "split it"


def test_no_temporary_files_are_left_behind(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.put("k", PageResult(steps=[StepResult(stdout="x")]))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.json", "secret"]


def test_editing_a_module_the_page_imported_invalidates_the_entry(tmp_path: Path) -> None:
    module = tmp_path / "helpers.py"
    module.write_text("VALUE = 1\n")
    cache = Cache(tmp_path / "cache")
    from lessonkit.execute.unchanged import source_digest

    cache.put(
        "k", PageResult(steps=[StepResult()], sources={str(module): source_digest(str(module))})
    )
    assert cache.get("k") is not None
    module.write_text("VALUE = 1  # a comment\n")
    assert cache.get("k") is None


def test_an_entry_holds_only_while_its_libraries_keep_their_versions(tmp_path: Path) -> None:
    from lessonkit.execute.unchanged import installed_version

    cache = Cache(tmp_path)
    now = installed_version("numpy")
    cache.put("now", PageResult(steps=[StepResult()], packages={"numpy": now}))
    cache.put("older", PageResult(steps=[StepResult()], packages={"numpy": "0.0.1"}))
    assert cache.get("now") is not None
    assert cache.get("older") is None


def test_pages_stored_at_once_into_a_new_cache_all_hold(tmp_path: Path) -> None:
    """A cold build's first pages finish together: every thread storing into the empty cache
    signs with the one secret that stays (one made a second and replaced the first, so the
    pages signed with the first ran again in the next build)."""
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    for attempt in range(20):
        folder = tmp_path / f"cache-{attempt}"
        cache, start = Cache(folder), Barrier(8)
        keys = [f"{attempt:02d}{n:062x}" for n in range(8)]

        def store(key: str, cache: Cache = cache, start: Barrier = start) -> None:
            start.wait()
            cache.put(key, PageResult(steps=[StepResult(text=key)]))

        with ThreadPoolExecutor(8) as threads:
            list(threads.map(store, keys))
        fresh = Cache(folder)  # the next build
        assert all(fresh.get(key) is not None for key in keys), f"attempt {attempt}"
